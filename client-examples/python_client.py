#!/usr/bin/env python3
"""text-browser from Python, standard library only: the README scenario against the fixtures app.

    TB_URL=http://127.0.0.1:3337/rpc API_KEY=... APP_URL=http://127.0.0.1:3338 python3 python_client.py

Create a session, open /projects, read it, click and fill, pull the console and the failed
requests, close. Exits non-zero on the first step that does not do what it should.
"""
import itertools
import json
import os
import sys
import urllib.request

TB_URL = os.environ.get("TB_URL", "http://127.0.0.1:3337/rpc")
API_KEY = os.environ["API_KEY"]
APP_URL = os.environ.get("APP_URL", "http://127.0.0.1:3338")
_ids = itertools.count(1)


class RpcError(Exception):
    def __init__(self, error):
        super().__init__(error["message"])
        self.code = error["code"]
        self.kind = error.get("data", {}).get("kind")
        self.remediation = error.get("data", {}).get("remediation")


def call(method, **params):
    """Calls one method; returns its result or raises RpcError (with .kind and .remediation)."""
    body = json.dumps({"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": params}).encode()
    request = urllib.request.Request(
        TB_URL, data=body, headers={"x-api-key": API_KEY, "content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        answer = json.load(response)
    if "error" in answer:
        raise RpcError(answer["error"])
    return answer["result"]


def check(what, condition, detail):
    if not condition:
        sys.exit(f"FAIL: {what}: {detail}")
    print(f"ok: {what}")


def main():
    sid = call("session.create")["session_id"]
    check("session.create", bool(sid), sid)
    landed = call("page.goto", session_id=sid, url=f"{APP_URL}/projects", waitUntil="networkidle")
    check("page.goto", landed["title"] == "Projects", landed)
    text = call("page.text", session_id=sid, selector="#project-list")["text"]
    check("page.text", "Borealis API" in text, text)
    count = call("page.evaluate", session_id=sid, expression="document.querySelectorAll('li').length")
    check("page.evaluate", count["result"] == 3, count)
    check("page.click", call("page.click", session_id=sid, selector="#new-project")["ok"], "not ok")
    check("page.fill", call("page.fill", session_id=sid, selector="#project-name", value="Zephyr")["ok"], "")
    preview = call("page.text", session_id=sid, selector="#preview")["text"]
    check("the page reacted", preview == "New project: Zephyr", preview)
    logs = call("logs.pull", session_id=sid)
    messages = [entry["text"] for entry in logs["console"]]
    check("logs.pull", "failed to load /api/fail: HTTP 500" in messages, messages)
    failed = call("network.pull", session_id=sid)["requests"]
    check("network.pull", any(r["url"].endswith("/api/fail") and r["status"] == 500 for r in failed), failed)
    check("session.close", call("session.close", session_id=sid)["ok"], "not ok")
    try:
        call("page.text", session_id=sid)
        sys.exit("FAIL: a closed session still answered")
    except RpcError as err:
        check("closed session is gone", err.kind == "session_not_found", err.kind)
    print("python example: all steps passed")


if __name__ == "__main__":
    main()
