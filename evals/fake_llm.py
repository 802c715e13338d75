"""A scripted OpenAI-compatible chat server for load tests of the served deployment (no model):
it answers with the first sentence of the prompt's first source, cited [1], streamed word by word
with a fixed delay, so answers pass the citation check and latency is what the rest of the stack
adds. It can also fail as real servers do (--fail, or POST {"mode": ...} to /_mode while it runs): 500 answers every
chat request with HTTP 500, hang accepts it and never answers, cut streams three words and closes the connection.
Usage: python -m evals.fake_llm --port 8081 [--delay 0.02] [--fail 500|hang|cut]
"""
from __future__ import annotations

import argparse
import json
import re
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SOURCE = re.compile(r'<source id="(\d+)">.*?Text:\s*(.+?)(?:</source>|$)', re.S)


def scripted_answer(messages: list[dict]) -> str:
    """First sentence of the last message's first source, cited; else a fixed line."""
    prompt = messages[-1].get("content", "") if messages else ""
    found = SOURCE.search(prompt if isinstance(prompt, str) else json.dumps(prompt))
    if not found:
        return "What are the results of the method?"  # a rewrite / translation request
    first = re.split(r"(?<=[.!?])\s+", found.group(2).strip())[0].rstrip(".")
    return f"{first} [{found.group(1)}]."


class Handler(BaseHTTPRequestHandler):
    delay = 0.02
    mode = "ok"  # or "500", "hang", "cut"

    def log_message(self, *args):  # quiet
        pass

    def _send(self, code: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if self.path.rstrip("/") == "/_mode":
            type(self).mode = request.get("mode", "ok")
            self._send(200, {"mode": self.mode})
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": "only /v1/chat/completions"})
            return
        if self.mode == "500":
            self._send(500, {"error": {"message": "internal error", "type": "server_error"}})
            return
        if self.mode == "hang":
            time.sleep(3600)
            return
        text = scripted_answer(request.get("messages") or [])
        base = {"id": "fake-1", "created": int(time.time()), "model": request.get("model") or "fake"}
        if not request.get("stream"):
            time.sleep(self.delay * len(text.split()))
            self._send(200, {**base, "object": "chat.completion", "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        words = text.split(" ")
        for i, word in enumerate(words):
            if self.mode == "cut" and i == 3:
                self.wfile.flush()
                self.connection.shutdown(2)  # gone mid-answer: no finish_reason, no [DONE]
                return
            time.sleep(self.delay)
            delta = {"content": word + (" " if i < len(words) - 1 else "")}
            if i == 0:
                delta["role"] = "assistant"
            chunk = {**base, "object": "chat.completion.chunk",
                     "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
        end = {**base, "object": "chat.completion.chunk",
               "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        self.wfile.write(f"data: {json.dumps(end)}\n\ndata: [DONE]\n\n".encode())
        self.wfile.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8081)
    parser.add_argument("--delay", type=float, default=0.02, help="seconds per streamed word")
    parser.add_argument("--fail", choices=["500", "hang", "cut"], help="fail every chat request this way")
    args = parser.parse_args(argv)
    Handler.delay, Handler.mode = args.delay, args.fail or "ok"
    ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
