"""A keyword-search memory agent behind the HTTP agent protocol, on the standard library only.

    python examples/http_agent_server.py --port 8765
    sitbench run data/pilot --agent http://127.0.0.1:8765 --out runs/http

Endpoints: GET /info; POST /ingest, /respond, /end_session, /fork, /reset (bodies: `sitbench schema`).
Any language can serve the same JSON; this file is the reference.
"""

import argparse
import copy
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RANK = {"public": 0, "acquaintance": 1, "colleague": 2, "confidant": 3, "self": 4}
STOP = {"what", "when", "where", "which", "your", "you", "did", "the", "and", "that", "this", "with", "from"}
STATES, LOCK = {}, threading.Lock()


def words(text):
    return {w for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in STOP}


def ingest(body):
    evidence = body["subject"]["evidence"]
    records = [(r["t"], r["text"], r["disclosure"]) for r in evidence["records"]]
    STATES[body["state"]] = {"records": records, "relationships": evidence["relationships"]}
    return {"memory_ops": [{"op": "add", "count": len(records)}]}


def respond(body):
    state, turn = STATES[body["state"]], body["turn"]
    clearance = 0
    for rel in state["relationships"]:
        if rel["interlocutor_id"] == turn["interlocutor"]["interlocutor_id"]:
            versions = [v for v in rel["versions"] if v["t"] <= turn["date"]]  # ISO dates sort as text
            clearance = RANK[versions[-1]["clearance"]] if versions else 0
    asked = words(turn["utterance"])
    usable = [(len(asked & words(text)), text) for t, text, tier in state["records"]
              if t <= turn["date"] and RANK[tier] <= clearance]
    score, best = max(usable, default=(0, ""))
    said = f"{turn['interlocutor']['description']} said: {turn['utterance']}"
    state["records"].append((turn["date"], said, "public"))
    text = f"From what I remember: {best}" if score >= 2 else "I don't remember anything like that."
    return {"text": text, "memory_ops": [{"op": "search", "count": len(usable)}, {"op": "add"}]}


ROUTES = {
    "/ingest": ingest,
    "/respond": respond,
    "/end_session": lambda body: {},  # nothing conversational is held outside the memory
    "/fork": lambda body: STATES.__setitem__(body["state"], copy.deepcopy(STATES[body["source"]])) or {},
    "/reset": lambda body: STATES.pop(body["state"], None) and {},
}


class Handler(BaseHTTPRequestHandler):
    def reply(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path != "/info":
            return self.reply(404, {"error": "unknown path"})
        self.reply(200, {"name": "keyword-baseline-http", "version": "1", "supports_fork": True})

    def do_POST(self):
        route = ROUTES.get(self.path)
        if route is None:
            return self.reply(404, {"error": "unknown path"})
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        try:
            with LOCK:
                self.reply(200, route(body) or {})
        except KeyError as exc:
            self.reply(400, {"error": f"unknown state or field {exc}"})

    def log_message(self, *args):
        pass


def serve(port=0):
    """Start the server on 127.0.0.1 in a background thread; returns it (``server.server_port``)."""
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    server = serve(parser.parse_args().port)
    print(f"http://127.0.0.1:{server.server_port}", flush=True)
    threading.Event().wait()
