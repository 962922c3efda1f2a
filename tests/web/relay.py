"""A loopback TCP relay between OnFile and the identity provider, so a test can cut the line and
restore it while the provider process keeps running with everything it issued (its refresh tokens).

The provider derives its issuer from the Host header, so through the relay it names itself by the
relay's port: OnFile is configured with `relay.issuer`, and every party spells it that way.
"""

from __future__ import annotations

import contextlib
import socket
import threading

from web.demo.oidc_mock import free_port

__all__ = ("Relay",)


class Relay:
    def __init__(self, target_port: int) -> None:
        self.port = free_port()
        self._target = target_port
        self._listener: tuple[socket.socket, threading.Thread] | None = None
        self._open: set[socket.socket] = set()
        self._relays: list[threading.Thread] = []
        self._lock = threading.Lock()
        self.sent = bytearray()
        """Every byte sent to the provider through the relay."""
        self.received = bytearray()
        """Every byte the provider answered through the relay."""

    @property
    def issuer(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Relay:
        """Listen (again) on the relay's port."""
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen()
        accepting = threading.Thread(target=self._accept, args=(listener,), daemon=True)
        accepting.start()
        self._listener = (listener, accepting)
        return self

    def cut(self) -> None:
        """Nothing answers on the relay's port any more, and connections already open are dropped."""
        if self._listener is not None:
            listener, accepting = self._listener
            self._listener = None
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)  # wakes accept()
            accepting.join()
            listener.close()
        with self._lock:
            relays, self._relays = self._relays, []
        for relay in relays:
            while relay.is_alive():  # a relay may still be connecting upstream: drop what is open until it ends
                with self._lock:
                    connections = list(self._open)
                for connection in connections:
                    with contextlib.suppress(OSError):
                        connection.shutdown(socket.SHUT_RDWR)
                relay.join(0.05)

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # cut
            relay = threading.Thread(target=self._relay, args=(client,), daemon=True)
            with self._lock:
                self._relays.append(relay)
            relay.start()

    def _relay(self, client: socket.socket) -> None:
        try:
            upstream = socket.create_connection(("127.0.0.1", self._target), timeout=5)
        except OSError:
            client.close()
            return
        upstream.settimeout(None)
        with self._lock:
            self._open.update((client, upstream))
        back = threading.Thread(target=self._pump, args=(upstream, client, self.received), daemon=True)
        back.start()
        self._pump(client, upstream, self.sent)
        back.join()
        with self._lock:
            self._open.difference_update((client, upstream))
        client.close()
        upstream.close()

    def _pump(self, source: socket.socket, sink: socket.socket, record: bytearray) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                with self._lock:
                    record.extend(data)
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)
