"""Unlocks the vault fixture through text-browser's /mcp and prints every tool result after it.

Usage: vault.py BASE_URL API_KEY FIXTURES_URL PASSWORD — run by tests/api (exchange) with the SDK
that .ci/setup pins (mcp==2.3.0 in .venv-mcp). It opens an MCP session, navigates to the vault,
types PASSWORD into its master password field and unlocks (the page then sends the password in a
cookie, in headers, over a socket and in a message to a frame), then calls the tools that read what
the page did and prints one JSON line per result: {"tool", "text"}. The test looks for the password
in them. Exits non-zero when a tool call fails.
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

BASE, KEY, FIXTURES, PASSWORD = sys.argv[1:5]


def text_of(result):
    return "\n".join(block.text for block in result.content if block.type == "text")


async def call(session, tool, arguments=None):
    result = await session.call_tool(tool, arguments or {})
    text = text_of(result)
    if result.is_error:
        sys.exit(f"{tool} failed: {text}")
    print(json.dumps({"tool": tool, "text": text}))
    return text


async def main():
    http_client = create_mcp_http_client(headers={"x-api-key": KEY})
    async with http_client as http, streamable_http_client(f"{BASE}/mcp", http_client=http) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await call(session, "navigate", {"url": f"{FIXTURES}/vault/"})
            await call(session, "type", {"selector": "#master", "text": PASSWORD})
            await call(session, "click", {"selector": "text=Unlock"})
            await call(session, "assert_text", {"selector": "#state", "text": "keeper, server, socket", "timeout": 30000})
            network = json.loads(await call(session, "network", {"onlyErrors": False, "headers": True}))
            for request in network.get("requests", []):
                if request.get("url", "").endswith("/vault/api/unlock") and request.get("requestId"):
                    await call(session, "response_body", {"requestId": request["requestId"]})
            for tool, arguments in [("timeline", {}), ("console", {}), ("text", {}), ("snapshot", {}),
                                    ("evaluate", {"expression": "document.cookie"})]:
                await call(session, tool, arguments)


asyncio.run(main())
