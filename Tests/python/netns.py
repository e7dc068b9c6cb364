"""Test hosts of our own: a network namespace joined to this one by a veth pair (iproute2), so a test
can reach a server at an address that is not loopback, and never any address outside this machine.

    with Namespace() as ns:             # ns.inside = 10.213.X.1 (in the namespace), ns.outside = 10.213.X.2
        server = subprocess.Popen(ns.command(["sfumato", "studio", ...]))
        socket.create_connection((ns.inside, port))     # from this namespace, over the veth
"""
import os
import subprocess


def _sudo():
    return [] if os.geteuid() == 0 else ["sudo", "-n"]


def _ip(*args, check=True):
    return subprocess.run([*_sudo(), "ip", *args], check=check, capture_output=True, text=True)


class Namespace:
    def __init__(self, tag=None):
        n = (tag if tag is not None else os.getpid()) % 250 + 1
        self.name = f"sfumato-t{os.getpid()}-{n}"
        self.host_link, self.guest_link = f"sfa{os.getpid() % 100000}", f"sfb{os.getpid() % 100000}"
        self.inside, self.outside = f"10.213.{n}.1", f"10.213.{n}.2"

    def __enter__(self):
        self.close()
        _ip("netns", "add", self.name)
        try:
            _ip("link", "add", self.host_link, "type", "veth", "peer", "name", self.guest_link)
            # No IPv6 link-local addresses on the pair: their duplicate-address detection ends a second or
            # two after the link comes up, and Chromium's network-change watcher in this namespace then
            # aborts a navigation already under way (net::ERR_NETWORK_CHANGED).
            _ip("link", "set", self.host_link, "addrgenmode", "none")
            _ip("link", "set", self.guest_link, "addrgenmode", "none")
            _ip("link", "set", self.guest_link, "netns", self.name)
            _ip("addr", "add", f"{self.outside}/24", "dev", self.host_link)
            _ip("link", "set", self.host_link, "up")
            for args in (["addr", "add", f"{self.inside}/24", "dev", self.guest_link], ["link", "set", self.guest_link, "up"],
                         ["link", "set", "lo", "up"]):
                _ip("netns", "exec", self.name, "ip", *args)
        except Exception:
            self.close()
            raise
        return self

    def command(self, argv):
        """argv run inside the namespace (as the current user's privileges allow)."""
        return [*_sudo(), "ip", "netns", "exec", self.name, *argv]

    def close(self):
        _ip("link", "del", self.host_link, check=False)
        _ip("netns", "del", self.name, check=False)

    def __exit__(self, *exc):
        self.close()
