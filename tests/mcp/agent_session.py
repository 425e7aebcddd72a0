"""Drives text-browser's /mcp with the official MCP Python SDK, as an agent's MCP client would.

Usage: agent_session.py BASE_URL API_KEY FIXTURES_URL — run by tests/api/mcp.rs with the SDK that
.ci/setup pins (mcp==2.3.0 in .venv-mcp). Every step is asserted here; on success the last line
printed is `ok <n> steps`. The 2.x client API: streamable_http_client(url, http_client=…) yields
(read, write) streams; ClientSession(read, write).initialize() negotiates a session-based version.
"""

import asyncio
import base64
import json
import re
import sys
import urllib.request

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

BASE, KEY, FIXTURES = sys.argv[1], sys.argv[2], sys.argv[3]
AGENT_TOOLS = {
    "navigate", "snapshot", "click", "fill", "press", "type", "select", "hover", "text", "evaluate",
    "screenshot", "console", "network", "wait_for", "assert_text", "tabs", "axe", "close", "reload", "source",
    "inspect",
}
steps = 0


def check(condition, what, seen=None):
    global steps
    if not condition:
        sys.exit(f"FAILED: {what}" + (f"\n  seen: {seen}" if seen is not None else ""))
    steps += 1


def text_of(result):
    return "\n".join(block.text for block in result.content if block.type == "text")


def sessions_open():
    with urllib.request.urlopen(f"{BASE}/metrics") as response:
        metrics = response.read().decode()
    match = re.search(r"^text_browser_sessions_open (\d+)", metrics, re.M)
    return int(match.group(1)) if match else None


def client():
    return create_mcp_http_client(headers={"x-api-key": KEY})


async def broken_invoice():
    async with client() as http, streamable_http_client(f"{BASE}/mcp", http_client=http) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.server_info.name == "text-browser", "initialize names the server", init.server_info)

            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            check(AGENT_TOOLS <= set(tools), "tools/list offers the agent tools", sorted(tools))
            schema = tools["navigate"].input_schema
            check(schema["required"] == ["url"] and "session_id" not in schema["properties"],
                  "navigate takes url and no session_id", schema)

            landed = await session.call_tool("navigate", {"url": f"{FIXTURES}/invoices/view.html?id=17"})
            check(not landed.is_error and '"status":200' in text_of(landed), "navigate loads the page", text_of(landed))

            snapshot = text_of(await session.call_tool("snapshot", {}))
            pay = re.search(r'button "Pay now" \[ref=(e\d+)\]', snapshot)
            check(pay is not None, "the snapshot gives the Pay button a ref", snapshot)

            clicked = json.loads(text_of(await session.call_tool("click", {"ref": pay.group(1)})))
            request = clicked["effects"]["requests"][0]
            check(request["status"] == 422 and "card_declined" in request["responseBody"],
                  "the click's effects carry the declined payment", clicked)
            check(clicked["page"]["title"] == "Invoice · Acme", "an action says where the page is now", clicked)

            console = json.loads(text_of(await session.call_tool("console", {})))
            errors = [e["message"] for e in console["pageErrors"]]
            check(any("toFixed" in e for e in errors), "console reports the page error", console)

            shot = await session.call_tool("screenshot", {})
            image = shot.content[0]
            check(image.type == "image" and image.mime_type == "image/png", "screenshot is image content", image.type)
            check(base64.b64decode(image.data)[:8] == b"\x89PNG\r\n\x1a\n", "the image is a PNG")

            refused = await session.call_tool("navigate", {"url": "http://example.com/"})
            error = json.loads(text_of(refused))["error"]
            check(refused.is_error and error["data"]["kind"] == "url_not_allowed",
                  "a disallowed host is a tool error with its kind", text_of(refused))
            check(error["data"]["remediation"], "the tool error says what to do", error)

            typo = await session.call_tool("text", {"selecter": "h1"})
            error = json.loads(text_of(typo))["error"]
            check(typo.is_error and error["data"]["kind"] == "invalid_params" and "usage" not in error["data"],
                  "a mistyped argument is invalid_params without the JSON-RPC usage line", text_of(typo))

            closed = await session.call_tool("close", {})
            check("closed" in text_of(closed), "close ends the browser session", text_of(closed))


async def two_sessions_are_isolated_and_end_with_their_browser_sessions():
    async with client() as http, streamable_http_client(f"{BASE}/mcp", http_client=http) as (ra, wa), \
            streamable_http_client(f"{BASE}/mcp", http_client=http) as (rb, wb):
        async with ClientSession(ra, wa) as a, ClientSession(rb, wb) as b:
            await a.initialize()
            await b.initialize()
            for session in (a, b):
                await session.call_tool("navigate", {"url": f"{FIXTURES}/invoices/"})
            await a.call_tool("evaluate", {"expression": "localStorage.setItem('draft', 'from A') || 1"})
            seen_b = json.loads(text_of(await b.call_tool("evaluate", {"expression": "localStorage.getItem('draft')"})))
            check(seen_b["result"] is None, "B does not see A's storage", seen_b)
            seen_a = json.loads(text_of(await a.call_tool("evaluate", {"expression": "localStorage.getItem('draft')"})))
            check(seen_a["result"] == "from A", "A keeps its own storage", seen_a)
            check(sessions_open() == 2, "each MCP session holds one browser session", sessions_open())
    # Both MCP sessions ended (the client deleted them): their browser sessions close.
    for _ in range(100):
        if sessions_open() == 0:
            break
        await asyncio.sleep(0.1)
    check(sessions_open() == 0, "ended MCP sessions close their browser sessions", sessions_open())


async def main():
    await broken_invoice()
    await two_sessions_are_isolated_and_end_with_their_browser_sessions()
    print(f"ok {steps} steps")


asyncio.run(main())
