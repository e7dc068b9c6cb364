"""Pairing a device with `sfumato studio --lan`: the studio's own certificate authority, the server
certificate it issues (again when the addresses change), the pairing pages and configuration profile
served without the token, the QR code the terminal prints, and clients on another network namespace
whose only trust anchor is that authority: Python's ssl, Chromium (the CA in its NSS database) and
Firefox (the CA imported into its profile with certutil), with hostname checking on and no exception or override. Without the CA, or without the token, they
are refused."""
import asyncio
import os
import plistlib
import re
import socket
import ssl
import subprocess
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from engines import Firefox
from PIL import Image
from playwright.async_api import async_playwright
from test_studio_lan import free_port, stop

from conftest import PHOTOS
from netns import Namespace
from studio_support import CHROMIUM, CHROMIUM_ARGS


class LanStudio:
    """`sfumato studio --lan` with its own config folder, optionally inside a network namespace;
    reads the URL, the QR code and the pairing hint it prints."""

    def __init__(self, sfumato, tmp_path, *extra, namespace=None, port=None):
        self.config = tmp_path / "config"
        self.lan = self.config / "sfumato" / "lan"
        self.port = port or free_port()
        env = dict(os.environ, XDG_CONFIG_HOME=str(self.config), XDG_DATA_HOME=str(tmp_path / "data"))
        argv = [sfumato, "studio", str(PHOTOS / "rocket.jpg"), "--document", str(tmp_path / "lan.sfumato"),
                "--lan", "--port", str(self.port), *extra]
        if namespace:
            argv = namespace.command(["env", *[f"{k}={v}" for k, v in env.items() if k.startswith("XDG_")], *argv])
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
        self.lines = []
        while True:
            line = self.process.stdout.readline()
            assert line, "the studio ended before printing its document: " + self.process.stderr.read()
            self.lines.append(line.rstrip("\n"))
            if line.startswith("Document:"):
                break
        match = re.search(r"(https://[^ ]+/\?token=([0-9a-f]{32}))", self.lines[0])
        assert match, self.lines[0]
        self.url, self.token = match.group(1), match.group(2)

    def qr_lines(self):
        start = self.lines.index("Scan with the iPad's camera to open the studio:") + 1
        end = next(i for i, line in enumerate(self.lines) if line.startswith("First time on a device?"))
        return self.lines[start:end]

    def close(self):
        stop(self.process)


def decode_qr(lines, path):
    """The terminal's drawing as an image (each character two modules: upper and lower half), decoded by zbar."""
    width, height = max(len(line) for line in lines), 2 * len(lines)
    image = Image.new("L", (width, height), 255)
    for y, line in enumerate(lines):
        for x, c in enumerate(line):
            if c in "\u2588\u2580":
                image.putpixel((x, 2 * y), 0)
            if c in "\u2588\u2584":
                image.putpixel((x, 2 * y + 1), 0)
    image.resize((width * 8, height * 8), Image.NEAREST).save(path)
    return subprocess.run(["zbarimg", "--raw", "-q", str(path)], capture_output=True, text=True, check=True).stdout.strip()


def fetch(url, context):
    try:
        with urllib.request.urlopen(url, context=context, timeout=10) as r:
            return r.status, r.headers.get("content-type", ""), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("content-type", ""), e.read()


def websocket_status(host, port, path, context, server_hostname):
    """The status line of a WebSocket upgrade over TLS."""
    with socket.create_connection((host, port), timeout=10) as raw, context.wrap_socket(raw, server_hostname=server_hostname) as tls:
        authority = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        tls.sendall(f"GET {path} HTTP/1.1\r\nHost: {authority}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
        return tls.recv(1024).split(b"\r\n")[0]


def test_authority_certificate_profile_and_qr_code(sfumato, tmp_path):
    studio = LanStudio(sfumato, tmp_path)
    try:
        lan = studio.lan
        assert oct(lan.stat().st_mode & 0o777) == "0o700"
        for key in ["ca.key", "server.key"]:
            assert oct((lan / key).stat().st_mode & 0o777) == "0o600", key
        # The QR code the terminal shows is the URL it printed.
        assert decode_qr(studio.qr_lines(), tmp_path / "qr.png") == studio.url
        assert any("/pair" in line for line in studio.lines), studio.lines
        # A client trusting only the studio's authority, checking the host name (localhost is in the SAN).
        trusted = ssl.create_default_context(cafile=str(lan / "ca.crt"))
        assert trusted.check_hostname and trusted.verify_mode == ssl.CERT_REQUIRED
        base = f"https://localhost:{studio.port}"
        # The pairing pages need no token; the CA's certificate is what the folder holds.
        status, kind, page = fetch(base + "/pair", trusted)
        assert status == 200 and "text/html" in kind and b"Certificate Trust Settings" in page
        assert studio.token.encode() not in page, "the pairing page must not give the token away"
        status, kind, pem = fetch(base + "/pair/ca.crt", trusted)
        assert status == 200 and kind == "application/x-x509-ca-cert" and pem == (lan / "ca.crt").read_bytes()
        assert b"PRIVATE KEY" not in pem
        status, kind, body = fetch(base + "/pair/ca.mobileconfig", trusted)
        assert status == 200 and kind == "application/x-apple-aspen-config"
        profile = plistlib.loads(body)
        assert profile["PayloadType"] == "Configuration" and profile["PayloadVersion"] == 1
        (root,) = profile["PayloadContent"]
        assert root["PayloadType"] == "com.apple.security.root"
        assert root["PayloadContent"] == ssl.PEM_cert_to_DER_cert(pem.decode()), "the profile must carry the CA's certificate"
        assert re.fullmatch(r"[0-9A-F]{8}-[0-9A-F]{4}-5[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}", root["PayloadUUID"])
        # Everything else still needs the token.
        assert fetch(base + "/api/document", trusted)[0] == 403
        assert fetch(base + f"/api/document?token={studio.token}", trusted)[0] == 200
        assert fetch(base + "/pair/other", trusted)[0] == 403
        # The server certificate: signed by the authority for serverAuth, within Apple's 398 days.
        text = subprocess.run(["openssl", "x509", "-in", str(lan / "server.crt"), "-noout", "-text"],
                              capture_output=True, text=True, check=True).stdout
        assert "CA:FALSE" in text and "TLS Web Server Authentication" in text and "DNS:localhost" in text
        days = subprocess.run(["openssl", "x509", "-in", str(lan / "server.crt"), "-noout", "-checkend", str(398 * 86400)],
                              capture_output=True, text=True)
        assert days.returncode == 1, "the server certificate must expire within 398 days"
        ca_text = subprocess.run(["openssl", "x509", "-in", str(lan / "ca.crt"), "-noout", "-text"],
                                 capture_output=True, text=True, check=True).stdout
        assert "CA:TRUE, pathlen:0" in ca_text and "Certificate Sign" in ca_text
    finally:
        studio.close()


def test_certificates_are_kept_reissued_for_new_addresses_and_reset(sfumato, tmp_path):
    def run(*extra):
        s = LanStudio(sfumato, tmp_path, *extra)
        s.close()
        return (s.lan / "ca.crt").read_bytes(), (s.lan / "server.crt").read_bytes(), (s.lan / "server.names").read_text()

    ca, server, names = run("--host", "127.0.0.1")
    assert run("--host", "127.0.0.1") == (ca, server, names), "an unchanged studio keeps its certificates"
    ca2, server2, names2 = run("--host", "127.0.0.2")
    assert ca2 == ca and server2 != server and "IP:127.0.0.2" in names2 and "IP:127.0.0.2" not in names
    ca3, server3, _ = run("--host", "127.0.0.2", "--reset-certificates")
    assert ca3 != ca and server3 != server2
    check = subprocess.run(["openssl", "verify", "-CAfile", str(tmp_path / "config/sfumato/lan/ca.crt"),
                            str(tmp_path / "config/sfumato/lan/server.crt")], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    bad = subprocess.run([sfumato, "studio", "--reset-certificates"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--lan" in bad.stderr


def nss_database(home, ca=None):
    """An NSS database for a browser whose $HOME is `home`, trusting `ca` (a PEM file) for TLS servers."""
    db = home / ".pki" / "nssdb"
    db.mkdir(parents=True)
    subprocess.run(["certutil", "-N", "-d", f"sql:{db}", "--empty-password"], check=True, capture_output=True)
    if ca:
        subprocess.run(["certutil", "-A", "-d", f"sql:{db}", "-t", "C,,", "-n", "sfumato-studio-ca", "-i", str(ca)],
                       check=True, capture_output=True)


async def chromium_opens(url, home):
    """Opens the studio's page in Chromium whose $HOME is `home`; returns whether the page connected
    its WebSocket (the studio's status shows it), or the navigation error."""
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, env=dict(os.environ, HOME=str(home)))
        try:
            page = await (await browser.new_context(ignore_https_errors=False)).new_page()
            try:
                await page.goto(url, timeout=20_000)
            except Exception as e:   # an untrusted certificate: the navigation fails
                return str(e).split("\n")[0]
            await page.wait_for_function("() => window.sfumatoDocument && window.sfumatoDocument.width > 0", timeout=20_000)
            return "connected"
        finally:
            await browser.close()


def firefox_opens(url, ca=None):
    """Opens the studio's page in Firefox ESR whose profile trusts `ca` (None: nothing but its own
    roots); returns whether the page connected its WebSocket, or the navigation error."""
    engine = Firefox(trust=ca)
    try:
        try:
            engine.open(url)
        except AssertionError as e:   # an untrusted certificate: Marionette says "insecure certificate"
            return str(e)
        engine.until("() => !!(window.sfumatoDocument && window.sfumatoDocument.width > 0)", timeout=20)
        return "connected"
    finally:
        engine.close()


def test_a_client_trusting_only_the_studio_ca_connects_from_another_host(sfumato, tmp_path):
    with Namespace() as ns:
        studio = LanStudio(sfumato, tmp_path, namespace=ns)
        try:
            ca = studio.lan / "ca.crt"
            address = ns.inside
            assert f"https://{address}:{studio.port}/" in studio.url or address in (studio.lan / "server.names").read_text()
            # Python's ssl with the CA as its only anchor, hostname (the IP address) checked.
            trusted = ssl.create_default_context(cafile=str(ca))
            url = f"https://{address}:{studio.port}"
            assert fetch(url + f"/api/document?token={studio.token}", trusted)[0] == 200
            assert websocket_status(address, studio.port, f"/ws?token={studio.token}", trusted, address).split(b" ")[1] == b"101"
            assert fetch(url + "/api/document", trusted)[0] == 403
            assert fetch(url + f"/api/document?token={'0' * 32}", trusted)[0] == 403
            # Without the CA: the certificate is not trusted.
            with pytest.raises(urllib.error.URLError) as refused:
                fetch(url + f"/api/document?token={studio.token}", ssl.create_default_context())
            assert isinstance(refused.value.reason, ssl.SSLCertVerificationError)
            # A name the certificate does not hold: refused by hostname checking.
            with pytest.raises(ssl.SSLCertVerificationError):
                websocket_status(address, studio.port, "/ws", trusted, "studio.example")
            # Chromium with the CA in its NSS database opens the page and its WebSocket; without it, no.
            with tempfile.TemporaryDirectory() as trusting, tempfile.TemporaryDirectory() as bare:
                nss_database(Path(trusting), ca)
                nss_database(Path(bare))
                page_url = f"{url}/?token={studio.token}"
                assert asyncio.run(chromium_opens(page_url, Path(trusting))) == "connected"
                assert "ERR_CERT_AUTHORITY_INVALID" in asyncio.run(chromium_opens(page_url, Path(bare)))
                # Firefox ESR with the CA imported into its profile; without it, an insecure certificate.
                assert firefox_opens(page_url, ca) == "connected"
                assert "insecure certificate" in firefox_opens(page_url)
                # The right CA, the wrong token: not even the page.
                assert fetch(url + f"/?token={'0' * 32}", trusted)[0] == 403
        finally:
            studio.close()
