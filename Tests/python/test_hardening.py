"""The studio as a hostile network sees it: it listens only where it is told, answers only its own
pages (Host, Origin, token), survives every malformed message, stays answering under a flood, and
the command line cleans up after itself when interrupted."""
import asyncio
import json
import os
import pathlib
import re
import signal
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request

import pytest
import websockets

import studio_load
from conftest import PHOTOS
from netns import Namespace
from studio_support import Studio

LOAD_FILE = pathlib.Path(__file__).with_name("load.json")   # the flood's figures, for the notes


def raw_http(port, request, host="127.0.0.1", timeout=5):
    """Sends raw request bytes; returns the status line and headers and body as bytes."""
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.sendall(request)
        data = b""
        try:
            while chunk := s.recv(65536):
                data += chunk
                if b"\r\n\r\n" in data:
                    head, _, body = data.partition(b"\r\n\r\n")
                    length = re.search(rb"content-length: *(\d+)", head, re.I)
                    if length is None or len(body) >= int(length.group(1)):
                        break
        except TimeoutError:
            pass
    return data


def upgrade(port, path, host, origin=None, cookie=None):
    """A WebSocket upgrade by hand; returns the status line."""
    headers = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" \
              "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
    if origin:
        headers += f"Origin: {origin}\r\n"
    if cookie:
        headers += f"Cookie: {cookie}\r\n"
    return raw_http(port, (headers + "\r\n").encode()).split(b"\r\n")[0]


@pytest.fixture
def studio(sfumato, tmp_path):
    server = Studio(sfumato, PHOTOS / "rocket.jpg", tmp_path).start()
    yield server
    server.stop()


def port_of(studio):
    return int(studio.base.rstrip("/").rsplit(":", 1)[1])


def test_listens_on_loopback_only_and_lan_only_when_asked(sfumato, tmp_path):
    """Inside a namespace of its own, the studio is reachable on its loopback only; from another host
    (this namespace, over a veth) it is not, until --lan, and then only over TLS with the token."""
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"))
    with Namespace() as ns:
        for lan in (False, True):
            port = 18000 + os.getpid() % 1000 + (1 if lan else 0)
            args = [sfumato, "studio", str(PHOTOS / "rocket.jpg"), "--document", str(tmp_path / f"ns{lan}.sfumato"),
                    "--port", str(port)] + (["--lan"] if lan else [])
            server = subprocess.Popen(ns.command(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
            try:
                line = server.stdout.readline()
                token = re.search(r"token=([0-9a-f]{32})", line).group(1)
                listening = server.stdout.readline()
                # What it listens on, as the kernel sees it.
                ss = subprocess.run(ns.command(["ss", "-Hltn", f"sport = :{port}"]), capture_output=True, text=True).stdout
                addresses = sorted(line.split()[3].rsplit(":", 1)[0] for line in ss.splitlines())
                if lan:
                    assert addresses == ["*"], ss
                    context = ssl.create_default_context()
                    context.check_hostname = False
                    context.verify_mode = ssl.CERT_NONE
                    url = f"https://{ns.inside}:{port}/api/document?token={token}"
                    with urllib.request.urlopen(url, context=context, timeout=10) as r:
                        assert json.loads(r.read())["width"] == 640
                else:
                    assert addresses == ["127.0.0.1", "[::1]"], ss
                    assert "this machine only" in listening
                    with pytest.raises(OSError):
                        socket.create_connection((ns.inside, port), timeout=3).close()
                    # Inside, on its loopback, it answers.
                    probe = subprocess.run(ns.command(["python3", "-c", f"import urllib.request;print(urllib.request.urlopen("
                                                       f"'http://127.0.0.1:{port}/api/document?token={token}').status)"]),
                                           capture_output=True, text=True, timeout=20)
                    assert probe.stdout.strip() == "200", probe.stderr
            finally:
                server.send_signal(signal.SIGTERM)
                server.wait(10)
    # An address other machines reach needs --lan.
    r = subprocess.run([sfumato, "studio", "--host", "0.0.0.0", "--port", "0"], capture_output=True, text=True, env=env, timeout=20)
    assert r.returncode == 2 and "--lan" in r.stderr


def test_only_its_own_pages_get_in(studio):
    port, token = port_of(studio), studio.token
    ours = f"127.0.0.1:{port}"

    def status(path, host=ours, method="GET", origin=None, cookie=None, body=b""):
        req = f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {len(body)}\r\n"
        if origin:
            req += f"Origin: {origin}\r\n"
        if cookie:
            req += f"Cookie: {cookie}\r\n"
        reply = raw_http(port, req.encode() + b"\r\n" + body)
        return int(reply.split(b" ")[1]), reply

    # The token: required everywhere, in the URL or the cookie the first visit sets.
    assert status("/api/document")[0] == 403
    assert status("/")[0] == 403
    assert status(f"/api/document?token={'0' * 32}")[0] == 403
    code, reply = status(f"/?token={token}")
    assert code == 200
    cookie = re.search(rb"set-cookie: *(sfumato-\d+=[0-9a-f]{32})[^\r]*", reply, re.I)
    assert cookie and b"HttpOnly" in cookie.group(0) and b"SameSite=Strict" in cookie.group(0), reply[:400]
    jar = cookie.group(1).decode()
    assert status("/api/document", cookie=jar)[0] == 200
    # DNS rebinding: the right token under a foreign Host is refused.
    for host in ["evil.example", f"evil.example:{port}", f"127.0.0.1:{port + 1}", f"localhost.evil.example:{port}"]:
        assert status(f"/api/export?token={token}", host=host)[0] in (400, 403), host
    assert status(f"/api/document?token={token}", host=f"localhost:{port}")[0] == 200
    # Cross-site requests: another site's page changing the document is refused, with or without the token.
    for origin in ["http://evil.example", "null", f"http://127.0.0.1:{port + 1}"]:
        assert status(f"/api/undo?token={token}", method="POST", origin=origin)[0] == 403, origin
        assert b" 101 " not in upgrade(port, f"/ws?token={token}", ours, origin=origin), origin
        assert b" 101 " not in upgrade(port, "/ws", ours, origin=origin, cookie=jar), origin
    assert b" 101 " in upgrade(port, f"/ws?token={token}", ours, origin=f"http://{ours}")
    assert b" 101 " in upgrade(port, "/ws", ours, origin=f"http://{ours}", cookie=jar)
    assert b" 101 " not in upgrade(port, "/ws", ours)
    # Methods: 405 for the rest, HEAD without a body.
    for method in ["PUT", "DELETE", "PATCH"]:
        assert status(f"/api/document?token={token}", method=method)[0] == 405, method
    assert status(f"/api/document?token={token}", method="POST")[0] == 405
    assert status(f"/api/undo?token={token}")[0] == 405
    code, reply = status(f"/api/document?token={token}", method="HEAD")
    head, _, body = reply.partition(b"\r\n\r\n")
    assert code == 200 and body == b"" and int(re.search(rb"content-length: *(\d+)", head, re.I).group(1)) > 100
    # A render far past the document's size is refused at once.
    assert status(f"/api/render?width=20000&token={token}")[0] == 400


def hostile_variants():
    """Every field of every message type (the protocol tests' table) given each hostile value, as text
    (NaN and the infinities as JSON cannot carry them: bare words and 1e309)."""
    base = {
        "hello": {"type": "hello", "viewport": {"width": 800, "height": 600}, "dpr": 1, "acks": False, "rawRegions": False},
        "viewport": {"type": "viewport", "viewport": {"width": 800, "height": 600}, "dpr": 1},
        "mode": {"type": "mode", "mode": "sketch"}, "hold": {"type": "hold", "pair": "hue-saturation"},
        "pen": {"type": "pen", "phase": "move", "stroke": 1, "batch": 1,
                "samples": [{"x": 10, "y": 20, "pressure": 0.5, "altitude": 1, "azimuth": 1, "twist": 0, "tangentialPressure": 0,
                             "pointerType": "pen", "buttons": 1, "t": 1, "coalesced": False}], "predicted": []},
        "curve": {"type": "curve", "levels": [0, 0.25, 0.5, 0.75, 1], "final": False}, "preset": {"type": "preset", "index": 1},
        "brush": {"type": "brush", "brush": "pen", "color": "#123456", "keepStrokes": True, "pressureCurve": [[0, 0], [1, 1]]},
        "beforeAfter": {"type": "beforeAfter", "on": False}, "camera": {"type": "camera", "on": False, "width": 960, "height": 540},
        "drawn": {"type": "drawn", "seq": 1}, "stats": {"type": "stats", "count": 1, "p50": 1, "p95": 1, "p99": 1},
    }
    marker = "\u0000HOSTILE\u0000"
    hostile = ["NaN", "Infinity", "-Infinity", "1e309", "-1e309", "1e300", "-1e300", "-1", "-1e19", "\"text\"", "true", "[]", "{}", "null"]

    def paths(value, path=()):
        if isinstance(value, dict):
            for k, v in value.items():
                if path == () and k == "type":
                    continue
                yield path + (k,)
                yield from paths(v, path + (k,))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                yield path + (i,)
                yield from paths(v, path + (i,))

    def replaced(value, path):
        if not path:
            return marker
        value = json.loads(json.dumps(value))
        node = value
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = marker
        return value

    for message in base.values():
        for path in paths(message):
            text = json.dumps(replaced(message, path))
            for h in hostile:
                yield text.replace(json.dumps(marker), h)


def test_every_malformed_message_is_answered_and_the_studio_stays_up(studio):
    variants = list(hostile_variants())
    assert len(variants) > 700

    async def scenario():
        async with websockets.connect(studio.ws_url, max_size=None) as ws:
            await ws.send(json.dumps({"type": "hello", "viewport": {"width": 800, "height": 600}, "dpr": 1}))
            for text in variants:
                await ws.send(text)
            await ws.send(json.dumps({"type": "stats", "count": 7, "p50": 1, "p95": 2, "p99": 3}))   # a marker: well-formed
            errors = 0
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                m = await asyncio.wait_for(ws.recv(), 30)
                if isinstance(m, str) and json.loads(m).get("type") == "error":
                    errors += 1
                    if errors >= len(variants) // 2:
                        break
            return errors
    errors = asyncio.run(scenario())
    # Some variants are valid (null for an optional field, -1 for a coordinate): most are not.
    assert errors >= len(variants) // 2
    assert studio.process.poll() is None
    assert studio.document()["width"] == 640


def test_a_flood_leaves_the_studio_answering_strokes_intact_and_memory_back(sfumato, tmp_path):
    r = studio_load.run(sfumato, connections=200, drawers=20, seconds=10, rate=60, folder=tmp_path)
    LOAD_FILE.write_text(json.dumps(r, indent=2))
    assert r["accepted"] <= 1 + 2 * 8, r            # the page limit held (flood and drawers each met it)
    assert r["refused"] >= 200, r
    assert r["document_failures"] == 0, r           # every /api/document answered (10 s timeout each)
    assert r["strokes_acknowledged"] > 50, r
    assert r["acknowledged_strokes_missing"] == 0, r
    assert r["rss_peak_mib"] < 1024, r
    assert r["rss_final_mib"] <= r["rss_baseline_mib"] * 1.25 + 32, r


def test_folders_follow_home_and_xdg(sfumato, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env["HOME"] = str(home)
    server = subprocess.Popen([sfumato, "studio", str(PHOTOS / "rocket.jpg"), "--port", "0"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env, text=True)
    try:
        server.stdout.readline()
        server.stdout.readline()
        document = server.stdout.readline()
        assert str(home / ".local/share/sfumato/documents/rocket.sfumato") in document, document
        token = home / ".config/sfumato/studio-token"
        assert token.exists() and oct(token.stat().st_mode & 0o777) == "0o600"
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(10)
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    env["XDG_CONFIG_HOME"] = "relative/ignored"
    server = subprocess.Popen([sfumato, "studio", str(PHOTOS / "rocket.jpg"), "--port", "0"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env, text=True)
    try:
        first = server.stdout.readline()
        server.stdout.readline()
        assert str(tmp_path / "data/sfumato/documents/rocket.sfumato") in server.stdout.readline()
        # The token is kept: the same URL as last time.
        assert token.read_text().strip() in first
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(10)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_an_interrupted_apply_leaves_no_temporary_file(sfumato, tmp_path, sig):
    import numpy as np
    from PIL import Image
    big = tmp_path / "big.png"
    Image.fromarray((np.random.default_rng(1).random((3000, 4000, 3)) * 255).astype("uint8")).save(big, compress_level=1)
    out = tmp_path / "out"
    out.mkdir()
    p = subprocess.Popen([sfumato, "apply", str(big), "-o", str(out / "o.png"), "-f", "CIGaussianBlur:inputRadius=40"],
                         stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while not any(out.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert any(out.iterdir()), "the temporary file should exist while writing"
    p.send_signal(sig)
    p.wait(20)
    assert p.returncode == -sig
    assert list(out.iterdir()) == []


def test_a_photo_bomb_is_refused_from_its_header(studio):
    """A few hundred bytes that claim a 30000x30000 image: refused before anything is decoded."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 30000, 30000, 8, 6, 0, 0, 0)) \
        + chunk(b"IDAT", zlib.compress(b"\0" * 1000)) + chunk(b"IEND", b"")
    status, _, body = studio.request("/api/open?name=bomb.png", "POST", png)
    assert status == 413 and b"megapixels" in body, (status, body[:200])
    assert studio.document()["width"] == 640


def test_idle_connections_cannot_lock_out_a_page(studio):
    """More idle connections than the limit (512) hold no one out: at the limit the oldest connection that
    has not sent a request is closed to make room, so a real request still gets in; and a refused client
    does not keep its connection."""
    port = port_of(studio)
    idle = []
    try:
        for _ in range(560):
            idle.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        time.sleep(0.3)
        assert studio.document()["width"] == 640
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(f"GET /api/document HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            reply = b""
            while chunk := s.recv(4096):
                reply += chunk
            assert b" 403 " in reply.split(b"\r\n")[0] and b"connection: close" in reply.lower(), reply[:300]
    finally:
        for s in idle:
            s.close()
    assert studio.document()["width"] == 640
