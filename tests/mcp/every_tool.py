"""Drives every tool text-browser's /mcp lists with the official MCP Python SDK, against the fixtures
app, and checks what each did; also each tool's annotations and the size of tools/list.

Usage: every_tool.py BASE_URL API_KEY FIXTURES_URL — run by tests/api/mcp.rs with the SDK that
.ci/setup pins (mcp==2.3.0 in .venv-mcp). On success the last line printed is
`ok <n> tools, tools/list <bytes> bytes`.

A tool the server lists that this script does not call fails it, and so does a tool without an
expected set of hints below: a new tool comes with its test.
"""

import base64
import json
import re
import sys

import anyio
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

BASE, KEY, FIXTURES = sys.argv[1], sys.argv[2], sys.argv[3]

# What an agent's context pays for tools/list on every turn (issue 27).
BUDGET = 16_000

# What each tool does to its world, as a client reads the annotations (the protocol's defaults
# applied to hints left out): (readOnly, destructive, idempotent, openWorld). Written out here,
# not derived, so a changed declaration in the registry shows up.
READ = (True, None, None, False)
ACT = (False, True, False, True)
LOAD = (False, False, True, True)
STEP = (False, False, False, True)
SET = (False, False, True, False)
END = (False, True, True, False)
HINTS = {
    "navigate": LOAD, "reload": LOAD, "back": STEP, "forward": STEP, "tab_open": STEP,
    "wait_for": READ, "text": READ, "snapshot": READ, "inspect": READ, "source": READ, "screenshot": READ,
    "axe": READ, "timeline": READ, "console": READ, "network": READ, "response_body": READ, "assert_text": READ, "tabs": READ,
    "evaluate": ACT, "click": ACT, "dblclick": ACT, "fill": ACT, "fill_form": ACT, "press": ACT, "type": ACT,
    "hover": ACT, "select": ACT, "check": ACT, "uncheck": ACT, "upload": ACT, "drag": ACT, "scroll": ACT,
    "viewport": SET, "emulate": SET, "dialog": SET, "tab_focus": SET,
    "close": END, "tab_close": END,
}

called = set()


def fail(what, seen=None):
    sys.exit(f"FAILED: {what}" + (f"\n  seen: {seen}" if seen is not None else ""))


def check(condition, what, seen=None):
    if not condition:
        fail(what, seen)


def texts(result):
    return [block.text for block in result.content if block.type == "text"]


def text_of(result):
    return "\n".join(texts(result))


def json_of(result):
    return json.loads(texts(result)[0])


async def call(session, tool, arguments=None, error=False):
    called.add(tool)
    result = await session.call_tool(tool, arguments or {})
    check(result.is_error == error, f"{tool} {arguments} {'fails' if error else 'succeeds'}", text_of(result))
    return result


def ref(snapshot, pattern):
    found = re.search(pattern + r'[^\n]*?\[ref=(e\d+)\]', snapshot)
    check(found is not None, f"the snapshot has a ref for {pattern}", snapshot)
    return found.group(1)


def effective(annotations):
    a = annotations
    read_only = a.read_only_hint
    destructive = None if read_only else (True if a.destructive_hint is None else a.destructive_hint)
    idempotent = None if read_only else bool(a.idempotent_hint)
    open_world = True if a.open_world_hint is None else a.open_world_hint
    return (read_only, destructive, idempotent, open_world)


async def listing(session):
    listed = await session.list_tools()
    size = len(json.dumps(listed.model_dump(mode="json", by_alias=True, exclude_none=True),
                          separators=(",", ":"), ensure_ascii=False).encode())
    check(size <= BUDGET, f"tools/list fits {BUDGET} bytes", size)
    tools = {tool.name: tool for tool in listed.tools}
    check(set(tools) == set(HINTS), "every tool listed has its expected hints here, and no more",
          sorted(set(tools) ^ set(HINTS)))
    for name, tool in tools.items():
        check(tool.annotations is not None and tool.annotations.read_only_hint is not None,
              f"{name} says whether it is read-only", tool.annotations)
        check(effective(tool.annotations) == HINTS[name], f"{name}'s annotations", tool.annotations)
        check("session_id" not in tool.input_schema["properties"], f"{name} needs no session_id")
    check(tools["navigate"].input_schema["properties"]["waitUntil"].get("default") == "settled",
          "navigate says it waits for the page's own requests", tools["navigate"].input_schema)
    return tools, size


async def reading_and_acting(s):
    # The projects page fetches its list at load and the API answers 800 ms later: navigate waits
    # for it (settled), so the first read is complete.
    landed = json_of(await call(s, "navigate", {"url": f"{FIXTURES}/projects/"}))
    check(landed["status"] == 200 and landed["title"] == "Projects", "navigate lands", landed)
    read = text_of(await call(s, "text", {"selector": "#status"}))
    check(read == "3 projects", "the data that arrived after the load is there at once", read)

    snapshot = text_of(await call(s, "snapshot"))
    new_project = ref(snapshot, r'button "New Project"')
    # An action asked for a diff answers with it, beside where the page is.
    clicked = await call(s, "click", {"ref": new_project, "snapshot": "diff"})
    blocks = texts(clicked)
    check(len(blocks) == 2, "a click with snapshot: diff answers JSON and the diff", blocks)
    result = json.loads(blocks[0])
    check(result["page"]["title"] == "Projects" and result["page"]["url"].endswith("/projects/"),
          "the JSON says where the page is", result)
    check("unchanged" in result["page"] and "snapshot" not in result["page"], "the diff is its own block", result)
    diff = blocks[1]
    check(re.search(r'^\+\s+textbox "Project name" \[ref=e\d+\]', diff, re.M) is not None,
          "the diff shows the field the click revealed, marked +", diff)
    check("New Project" not in diff, "unchanged lines are left out", diff)

    name = ref(diff, r'textbox "Project name"')
    await call(s, "type", {"ref": name, "text": "Zep"})
    await call(s, "fill", {"ref": name, "value": "Zephyr"})
    pressed = json_of(await call(s, "press", {"ref": name, "key": "End"}))
    check(pressed["ok"] and pressed["page"]["title"] == "Projects", "press answers like every action", pressed)
    asserted = json_of(await call(s, "assert_text", {"selector": "#preview", "text": "New project: Zephyr"}))
    check(asserted.get("ok", True), "assert_text passes", asserted)
    waited = json_of(await call(s, "wait_for", {"state": "load"}))
    check(waited["state"] == "load", "wait_for", waited)
    evaluated = json_of(await call(s, "evaluate", {"expression": "document.querySelectorAll('#project-list li').length"}))
    check(evaluated["result"] == 3, "evaluate", evaluated)
    reloaded = json_of(await call(s, "reload"))
    check(reloaded["title"] == "Projects", "reload", reloaded)
    read = text_of(await call(s, "text", {"selector": "#status"}))
    check(read == "3 projects", "reload waits for the page's data too", read)


async def gestures(s):
    await call(s, "navigate", {"url": f"{FIXTURES}/team/"})
    await call(s, "hover", {"selector": "#account"})
    shown = text_of(await call(s, "snapshot", {"interactiveOnly": True}))
    check('menuitem' in shown, "hover opened the account menu", shown)
    await call(s, "dblclick", {"selector": "text=Grace Hopper"})
    await call(s, "select", {"selector": "#role", "values": "Editor"})
    await call(s, "check", {"selector": "#notify"})
    read = text_of(await call(s, "text", {"selector": "#notify-note"}))
    check(read == "Notifications on", "check", read)
    await call(s, "uncheck", {"selector": "#notify"})
    read = text_of(await call(s, "text", {"selector": "#notify-note"}))
    check(read == "Notifications off", "uncheck", read)
    await call(s, "drag", {"selector": "text=Alan Turing", "to": "#owners"})
    read = text_of(await call(s, "text", {"selector": "#status"}))
    check(read == "Alan Turing is now an owner", "drag", read)
    scrolled = json_of(await call(s, "scroll", {"deltaY": 600}))
    check(scrolled["scroll"]["y"] > 100, "scroll", scrolled)
    armed = json_of(await call(s, "dialog", {"accept": True}))
    check(armed["armed"], "dialog arms an answer", armed)
    removed = json_of(await call(s, "click", {"selector": "tr:first-child .remove"}))
    check(removed["effects"]["dialogs"][0].endswith("accepted (armed)"), "the armed answer was used", removed)


async def forms(s):
    await call(s, "navigate", {"url": f"{FIXTURES}/signup/"})
    filled = json_of(await call(s, "fill_form", {
        "fields": [{"selector": "#email", "value": "ada@example.com"},
                   {"selector": "#password", "value": "correct horse battery"},
                   {"selector": "#plan", "value": "Pro"}, {"selector": "#terms", "value": True}],
        "submit": "#create-account"}))
    request = filled["effects"]["requests"][0]
    check(request["method"] == "POST" and request["status"] == 201, "fill_form submits the form", filled)
    await call(s, "navigate", {"url": f"{FIXTURES}/upload/"})
    csv = base64.b64encode(b"name,email\nAda,ada@example.com\n").decode()
    uploaded = json_of(await call(s, "upload", {"selector": "#csv", "files": [{"name": "contacts.csv", "base64": csv}]}))
    check(uploaded["effects"]["requests"][0]["status"] == 200, "upload sends the file", uploaded)


async def evidence(s):
    await call(s, "navigate", {"url": f"{FIXTURES}/invoices/view.html?id=17"})
    paid = json_of(await call(s, "click", {"selector": "#pay"}))
    request = paid["effects"]["requests"][0]
    check(request["status"] == 422 and request.get("requestId"), "the declined payment is in the effects", paid)
    timeline = json_of(await call(s, "timeline", {"since": "lastAction"}))
    check("/pay 422" in timeline["timeline"], "timeline shows the declined payment with its status", timeline)
    body = json_of(await call(s, "response_body", {"requestId": request["requestId"]}))
    check("card_declined" in json.dumps(body), "response_body returns the whole body", body)
    console = json_of(await call(s, "console"))
    check(any("toFixed" in e["message"] for e in console["pageErrors"]), "console has the page error", console)
    network = json_of(await call(s, "network", {"onlyErrors": False}))
    check(any("/pay" in r["url"] for r in network["requests"]), "network lists the payment", network)
    source = json_of(await call(s, "source", {"url": "/invoices/view.js", "line": 12, "context": 1}))
    check("toFixed" in json.dumps(source), "source shows the throwing line", source)
    inspected = json_of(await call(s, "inspect", {"selector": "#pay"}))
    check(inspected, "inspect", inspected)
    shot = await call(s, "screenshot")
    check(shot.content[0].type == "image" and base64.b64decode(shot.content[0].data)[:4] == b"\x89PNG",
          "screenshot is a PNG")
    axe = json_of(await call(s, "axe"))
    check("violations" in axe, "axe", axe)


async def emulation(s):
    await call(s, "viewport", {"width": 390, "height": 844})
    width = json_of(await call(s, "evaluate", {"expression": "innerWidth"}))
    check(width["result"] == 390, "viewport resizes the page", width)
    dark = json_of(await call(s, "emulate", {"colorScheme": "dark"}))
    check(dark["prefersDark"], "emulate", dark)


async def history_and_tabs(s):
    back = json_of(await call(s, "back"))
    check(back["url"].endswith("/upload/"), "back", back)
    forward = json_of(await call(s, "forward"))
    check("/invoices/view.html" in forward["url"], "forward", forward)
    opened = json_of(await call(s, "tab_open", {"url": f"{FIXTURES}/team/"}))
    listed = json_of(await call(s, "tabs"))
    check(len(listed["tabs"]) == 2, "tabs lists both tabs", listed)
    first = next(t["tab_id"] for t in listed["tabs"] if t["tab_id"] != opened["tab_id"])
    focused = json_of(await call(s, "tab_focus", {"tab_id": first}))
    check("/invoices/" in focused["url"], "tab_focus", focused)
    closed = json_of(await call(s, "tab_close", {"tab_id": opened["tab_id"]}))
    check(closed["active"] == first, "tab_close", closed)
    await call(s, "close")


async def main():
    async with create_mcp_http_client(headers={"x-api-key": KEY}) as http, \
            streamable_http_client(f"{BASE}/mcp", http_client=http) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            tools, size = await listing(s)
            await reading_and_acting(s)
            await gestures(s)
            await forms(s)
            await evidence(s)
            await emulation(s)
            await history_and_tabs(s)
    check(called == set(tools), "every tool was driven", sorted(set(tools) - called))
    print(f"ok {len(called)} tools, tools/list {size} bytes")


anyio.run(main)
