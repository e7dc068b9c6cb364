"""`sfumato studio --lan`: TLS with a certificate from the studio's own certificate authority (made on
first use and kept in the config folder), the pairing pages that offer that authority's root, the QR code
of the URL, and the token without which every other request is refused."""
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request

from conftest import PHOTOS


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def stop(server):
    """Stops a studio the way a user's Ctrl-C would, and never leaves one running if it hangs."""
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
        raise AssertionError("the studio did not stop on SIGTERM within 10 s") from None


def test_lan_needs_tls_and_the_pairing_token(sfumato, tmp_path):
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"))
    port = free_port()
    server = subprocess.Popen([sfumato, "studio", str(PHOTOS / "rocket.jpg"), "--document", str(tmp_path / "lan.sfumato"),
                               "--lan", "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    try:
        line = server.stdout.readline()
        match = re.search(r"https://[^ ]+:(\d+)/\?token=([0-9a-f]{32})", line)
        assert match, line
        token = match.group(2)
        assert int(match.group(1)) == port
        # The certificates were made and kept in the config folder (keys readable by the owner only).
        lan = tmp_path / "config" / "sfumato" / "lan"
        for key in [lan / "ca.key", lan / "server.key"]:
            assert key.exists() and oct(key.stat().st_mode & 0o777) == "0o600", key
        assert (lan / "ca.crt").exists() and (lan / "server.crt").exists()
        assert oct(lan.stat().st_mode & 0o777) == "0o700"
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        base = f"https://127.0.0.1:{port}"

        def get(path):
            try:
                with urllib.request.urlopen(base + path, context=context, timeout=10) as r:
                    return r.status, r.read()
            except urllib.error.HTTPError as e:
                return e.code, e.read()

        for path in ["/", "/api/document", "/static/app.js", "/api/render?width=64"]:
            status, body = get(path)
            assert status == 403, (path, status)
            assert b"token" in body
        status, _ = get(f"/api/document?token={'0' * 32}")
        assert status == 403
        status, body = get(f"/api/document?token={token}")
        assert status == 200 and json.loads(body)["width"] == 640
        status, body = get(f"/?token={token}")
        assert status == 200 and b"<html" in body.lower()
        # Plain HTTP on the TLS port gets nowhere.
        served = False
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/document?token={token}", timeout=5).read()
            served = True
        except Exception:
            pass   # refused, reset or unreadable: not served
        assert not served, "plain HTTP was served on the TLS port"
        # A WebSocket upgrade without the token is refused.
        raw = socket.create_connection(("127.0.0.1", port), timeout=5)
        tls = context.wrap_socket(raw, server_hostname="localhost")
        tls.sendall(f"GET /ws HTTP/1.1\r\nHost: localhost:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
        reply = tls.recv(1024)
        assert b" 101 " not in reply.split(b"\r\n")[0], reply
        tls.close()
        # With the token it upgrades.
        raw = socket.create_connection(("127.0.0.1", port), timeout=5)
        tls = context.wrap_socket(raw, server_hostname="localhost")
        tls.sendall(f"GET /ws?token={token} HTTP/1.1\r\nHost: localhost:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
        reply = tls.recv(1024)
        assert b" 101 " in reply.split(b"\r\n")[0], reply
        tls.close()
    finally:
        stop(server)
    # The same certificate is reused next time.
    first = (tmp_path / "config" / "sfumato" / "lan" / "server.crt").read_bytes()
    again = subprocess.Popen([sfumato, "studio", str(tmp_path / "lan.sfumato"), "--lan", "--port", str(free_port())],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    try:
        assert "https://" in again.stdout.readline()
    finally:
        stop(again)
    assert (tmp_path / "config" / "sfumato" / "lan" / "server.crt").read_bytes() == first


def test_studio_outlives_a_closed_terminal(sfumato, tmp_path):
    """The studio logs each page that connects. When whoever read its output has gone (a closed terminal,
    `sfumato studio | head -1`), that log line fails with EPIPE; it must not take the studio down."""
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"))
    port = free_port()
    server = subprocess.Popen([sfumato, "studio", str(PHOTOS / "rocket.jpg"), "--document", str(tmp_path / "pipe.sfumato"),
                               "--port", str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    try:
        token = re.search(r"token=([0-9a-f]{32})", server.stdout.readline()).group(1)
        server.stdout.close()
        server.stderr.close()
        for _ in range(2):  # each connection writes a log line into the closed pipes
            raw = socket.create_connection(("127.0.0.1", port), timeout=5)
            raw.sendall(f"GET /ws?token={token} HTTP/1.1\r\nHost: localhost:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
            assert b" 101 " in raw.recv(1024).split(b"\r\n")[0]
            raw.close()
            time.sleep(0.5)
        assert server.poll() is None, f"the studio died with status {server.returncode}"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/document?token={token}", timeout=10) as r:
            assert json.loads(r.read())["width"] == 640
    finally:
        stop(server)
    assert server.returncode == 0
