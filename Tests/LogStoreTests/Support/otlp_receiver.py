#!/usr/bin/env python3
"""A loopback OTLP/HTTP logs receiver for LogStore's tests (OTLPShippingTests, OTLPEncodingTests).

Every body is read as a collector reads it: Protobuf's JSON mapping parsed into
opentelemetry-proto's ExportLogsServiceRequest (unknown fields and wrong types refused), after
the one exception OTLP makes to that mapping (traceId and spanId in hex, not base64). What it
could read is summarized, one JSON line per request, in the --out file:

    {"status": 200, "records": 3, "ids": [1, 2], "task_ids": [1], "keys": ["m1", "m2", "t1"],
     "severities": [9, 17, 9], "traces": {"t1": ["<trace hex>", "<span hex>"]},
     "resource": {"service.name": "..."}, "received": <monotonic s>, "answered": <monotonic s>,
     "encoding": "gzip", "headers": {...}, "retry_after": 2, "error": "..."}

`ids` are the messages' `logstore.id`, `task_ids` the tasks' `logstore.task.row_id`; `keys`
names each record in order (`m<id>`, `t<row id>`, `gap` for a `logstore.gap` record, `?` for
another), aligned with `severities`.

    otlp_receiver.py --port-file F --out F [--fail SPEC] [--lifetime S]
        Binds 127.0.0.1:0, writes the port to the port file when it serves (written whole:
        a temporary file renamed), and serves until SIGTERM (or the lifetime, 600 s unless
        given: a receiver a test failed to stop does not outlive the suite for long).
        --fail "503,429@2,400": the first requests, in the order they arrive, are answered
        these statuses (`429@2`: 429 with `Retry-After: 2`); later ones 200. A body that does
        not parse is answered 400 whatever its turn, with the error in its line.
        --save-bodies DIR: every accepted body is also written there as it came
        (<turn>.body, gzip or not), for the benchmark's baseline to post again.
    otlp_receiver.py --parse F
        Parses one body (a file; gzip is recognised by its magic) and prints its summary with
        the parsed request as Protobuf's JSON (`message`); status 1 and the error on stderr
        when it does not parse; status 3 when opentelemetry-proto is not importable.
"""

import argparse
import base64
import gzip
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

try:
    from google.protobuf import json_format
    from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
except ImportError as error:  # the tests check this first and skip; say why if run by hand
    print(f"opentelemetry-proto is not importable: {error}", file=sys.stderr)
    sys.exit(3)


class Malformed(Exception):
    """A body that is not an OTLP/HTTP JSON logs request."""


def hex_to_base64(value, field):
    """OTLP JSON's hex id as the base64 Protobuf's JSON mapping expects for `bytes`."""
    if not isinstance(value, str):
        raise Malformed(f"{field} is not a string: {value!r}")
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raise Malformed(f"{field} is not hex: {value!r}") from None
    if value and len(raw) != (16 if field == "traceId" else 8):
        raise Malformed(f"{field} has {len(raw)} bytes: {value!r}")
    return base64.b64encode(raw).decode("ascii")


def parse(body):
    """The request in `body` (JSON, gzip or not), or Malformed saying why not."""
    if body[:2] == b"\x1f\x8b":
        try:
            body = gzip.decompress(body)
        except (OSError, EOFError) as error:
            raise Malformed(f"bad gzip: {error}") from None
    try:
        document = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise Malformed(f"not JSON: {error}") from None
    if not isinstance(document, dict):
        raise Malformed("not a JSON object")
    for resource_logs in document.get("resourceLogs") or []:
        for scope_logs in (resource_logs or {}).get("scopeLogs") or []:
            for record in (scope_logs or {}).get("logRecords") or []:
                for field in ("traceId", "spanId"):
                    if isinstance(record, dict) and field in record:
                        record[field] = hex_to_base64(record[field], field)
    request = logs_service_pb2.ExportLogsServiceRequest()
    try:
        json_format.Parse(json.dumps(document), request)
    except json_format.ParseError as error:
        raise Malformed(f"not an ExportLogsServiceRequest: {error}") from None
    return request


def plain(value):
    """An AnyValue as a Python value (kvlists as dicts, arrays as lists)."""
    kind = value.WhichOneof("value")
    if kind == "kvlist_value":
        return {entry.key: plain(entry.value) for entry in value.kvlist_value.values}
    if kind == "array_value":
        return [plain(element) for element in value.array_value.values]
    if kind is None:
        return None
    scalar = getattr(value, kind)
    return scalar.hex() if isinstance(scalar, bytes) else scalar


def summary(request):
    """What the tests compare: the records' ids, severities, trace ids and the resource."""
    result = {"records": 0, "ids": [], "task_ids": [], "keys": [], "severities": [], "traces": {}, "resource": {}}
    for resource_logs in request.resource_logs:
        for attribute in resource_logs.resource.attributes:
            result["resource"][attribute.key] = plain(attribute.value)
        for scope_logs in resource_logs.scope_logs:
            for record in scope_logs.log_records:
                attributes = {attribute.key: plain(attribute.value) for attribute in record.attributes}
                if attributes.get("logstore.label") == "logstore.gap":
                    key = "gap"
                elif "logstore.id" in attributes:
                    result["ids"].append(attributes["logstore.id"])
                    key = f"m{attributes['logstore.id']}"
                elif "logstore.task.row_id" in attributes:
                    result["task_ids"].append(attributes["logstore.task.row_id"])
                    key = f"t{attributes['logstore.task.row_id']}"
                else:
                    key = "?"
                result["records"] += 1
                result["keys"].append(key)
                result["severities"].append(record.severity_number)
                if record.trace_id:
                    result["traces"][key] = [record.trace_id.hex(), record.span_id.hex()]
    return result


def parse_failures(spec):
    """`503,429@2,400` as [(503, None), (429, "2"), (400, None)]."""
    failures = []
    for item in filter(None, (part.strip() for part in (spec or "").split(","))):
        status, _, retry_after = item.partition("@")
        failures.append((int(status), retry_after or None))
    return failures


def serve(arguments):
    failures = parse_failures(arguments.fail)
    lock = threading.Lock()
    counter = [0]
    out = open(arguments.out, "a", encoding="utf-8")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            received = time.monotonic()
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            line = {"encoding": self.headers.get("Content-Encoding") or "identity",
                    "headers": {name.lower(): value for name, value in self.headers.items()}}
            # Content-Encoding says gzip only when it is: the magic check in parse() is for --parse.
            if line["encoding"] == "gzip" and body[:2] != b"\x1f\x8b":
                error = "Content-Encoding: gzip on a body that is not gzip"
            elif line["encoding"] not in ("gzip", "identity"):
                error = f"unknown Content-Encoding {line['encoding']}"
            elif self.path != "/v1/logs":
                error = f"posted to {self.path}, not /v1/logs"
            else:
                error = None
            if error is None:
                try:
                    line.update(summary(parse(body)))
                except Malformed as malformed:
                    error = str(malformed)
            with lock:
                turn = counter[0]
                counter[0] += 1
            status, retry_after = failures[turn] if turn < len(failures) else (200, None)
            if error is not None:
                status, retry_after = 400, None
                line["error"] = error
            if status == 200:
                answer = b"{}"
            else:
                answer = json.dumps({"code": 3 if status == 400 else 14, "message": error or f"told to fail with {status}"}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            if retry_after is not None:
                self.send_header("Retry-After", retry_after)
                line["retry_after"] = float(retry_after)
            self.end_headers()
            self.wfile.write(answer)
            self.wfile.flush()
            line.update(status=status, turn=turn, received=received, answered=time.monotonic())
            if arguments.save_bodies and status == 200:
                with open(os.path.join(arguments.save_bodies, f"{turn:06d}.body"), "wb") as saved:
                    saved.write(body)
            with lock:
                out.write(json.dumps(line, sort_keys=True) + "\n")
                out.flush()

        def log_message(self, *args):
            pass

    class Server(ThreadingHTTPServer):
        daemon_threads = True

    server = Server(("127.0.0.1", 0), Handler)
    # A child inherits its parent's blocked signals through posix_spawn, and the test process
    # blocks SIGTERM and SIGINT (the CLI's stop signal waits for them): unblocked here, or the
    # SIGTERM that ends the receiver would stay pending.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    stop = lambda *_: threading.Thread(target=server.shutdown, daemon=True).start()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    threading.Timer(arguments.lifetime, stop).start()
    temporary = arguments.port_file + ".partial"
    with open(temporary, "w", encoding="utf-8") as port_file:
        port_file.write(str(server.server_address[1]))
    os.replace(temporary, arguments.port_file)
    server.serve_forever(poll_interval=0.1)
    server.server_close()
    out.close()
    os._exit(0)  # the lifetime timer is not a daemon thread


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port-file")
    parser.add_argument("--out")
    parser.add_argument("--fail", default="")
    parser.add_argument("--lifetime", type=float, default=600)
    parser.add_argument("--parse")
    parser.add_argument("--save-bodies")
    arguments = parser.parse_args()
    if arguments.parse:
        with open(arguments.parse, "rb") as body:
            try:
                request = parse(body.read())
            except Malformed as error:
                print(error, file=sys.stderr)
                sys.exit(1)
        result = summary(request)
        result["message"] = json_format.MessageToDict(request, use_integers_for_enums=True)
        print(json.dumps(result, sort_keys=True))
        return
    if not arguments.port_file or not arguments.out:
        parser.error("give --port-file and --out (or --parse)")
    serve(arguments)


if __name__ == "__main__":
    main()
