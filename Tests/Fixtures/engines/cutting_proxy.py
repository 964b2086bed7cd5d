#!/usr/bin/env python3
"""A TCP proxy on loopback that cuts every connection once it has passed a fixed number of bytes
from the client, as a phone's link that drops mid-upload: the bytes up to the cut reach the
server, the connection then closes both ways. Answers pass untouched. Python's standard library
only.

    python3 cutting_proxy.py --upstream-port 8080 --cut-after 4600 --log DATA/connections.jsonl

Each connection, when it closes, appends {"sent": bytes from the client that were passed,
"cut": whether it was cut} to the log: the bytes a client put on the wire. Like the reference
engine it prints {"port": N, "url": ...} once it listens, and stops on SIGTERM.
"""

import argparse
import json
import signal
import socket
import sys
import threading

CHUNK = 16 * 1024


class Proxy:
    def __init__(self, port, upstream_port, cut_after, log):
        self.listener = socket.create_server(("127.0.0.1", port))
        self.upstream_port, self.cut_after, self.log = upstream_port, cut_after, log
        self.log_lock = threading.Lock()

    def serve(self):
        while True:
            client, _ = self.listener.accept()
            threading.Thread(target=self.relay, args=(client,), daemon=True).start()

    def relay(self, client):
        upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
        answers = threading.Thread(target=self.answer, args=(upstream, client), daemon=True)
        answers.start()
        sent, cut = 0, False
        try:
            while True:
                data = client.recv(min(CHUNK, self.cut_after - sent))
                if not data:
                    break
                upstream.sendall(data)
                sent += len(data)
                if sent >= self.cut_after:
                    cut = True
                    break
        except OSError:
            pass
        if cut:
            # The client's end closes first: over a link that dropped nothing more reaches it, not
            # even the server's answer to the short body (a 400), which it would take for a refusal.
            shut(client, socket.SHUT_RDWR)
        shut(upstream, socket.SHUT_WR)  # the server reads what came, then the end
        if cut:
            shut(upstream, socket.SHUT_RDWR)
        answers.join(timeout=30)
        client.close()
        upstream.close()
        with self.log_lock, open(self.log, "a") as file:
            file.write(json.dumps({"sent": sent, "cut": cut}) + "\n")

    @staticmethod
    def answer(upstream, client):
        try:
            while True:
                data = upstream.recv(CHUNK)
                if not data:
                    break
                client.sendall(data)
        except OSError:
            pass
        shut(client, socket.SHUT_WR)


def shut(end, how):
    """Shuts one direction or both of a socket that may already be closed."""
    try:
        end.shutdown(how)
    except OSError:
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--upstream-port", type=int, required=True, help="the engine's port on 127.0.0.1")
    parser.add_argument("--cut-after", type=int, required=True, help="bytes from the client passed per connection")
    parser.add_argument("--log", required=True, help="the file each connection's byte count is appended to")
    options = parser.parse_args()
    if options.cut_after < 1:
        parser.error("--cut-after is at least 1")
    proxy = Proxy(options.port, options.upstream_port, options.cut_after, options.log)
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(0))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    port = proxy.listener.getsockname()[1]
    print(json.dumps({"port": port, "url": "http://127.0.0.1:%d" % port}), flush=True)
    try:
        proxy.serve()
    except (KeyboardInterrupt, SystemExit):
        pass


if __name__ == "__main__":
    main()
