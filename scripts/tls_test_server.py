#!/usr/bin/env python3
"""An https server on 127.0.0.1 for the download tests: a certificate made for this run, a
small file, and redirects.

    python3 scripts/tls_test_server.py TARGET_URL

It makes a throw-away certificate for 127.0.0.1 with the `openssl` tool, listens on a free
port and prints one line, `PORT CERTIFICATE_FILE`, then serves until stdin closes:

    GET|HEAD /hello      200, the body `hello over tls`
    GET|HEAD /hop        302 to /hello on this server (an https redirect, followed)
    GET|HEAD /downgrade  302 to TARGET_URL (an http URL: the client must refuse it)

Every request is logged to stderr.
"""

import http.server
import os
import ssl
import subprocess
import sys
import tempfile
import threading

BODY = b"hello over tls"


def make_certificate(folder):
    key = os.path.join(folder, "key.pem")
    cert = os.path.join(folder, "cert.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return key, cert


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: tls_test_server.py TARGET_URL")
    target = sys.argv[1]

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def answer(self, with_body):
            if self.path == "/hello":
                self.send_response(200)
                self.send_header("Content-Length", str(len(BODY)))
                self.end_headers()
                if with_body:
                    self.wfile.write(BODY)
                return
            location = {"/hop": "/hello", "/downgrade": target}.get(self.path)
            self.send_response(302 if location else 404)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self):
            self.answer(True)

        def do_HEAD(self):
            self.answer(False)

        def log_message(self, format, *args):
            sys.stderr.write("tls_test_server: " + (format % args) + "\n")

    with tempfile.TemporaryDirectory() as folder:
        key, cert = make_certificate(folder)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        print(server.server_address[1], cert, flush=True)
        sys.stdin.read()  # until the test closes it
        server.shutdown()


if __name__ == "__main__":
    main()
