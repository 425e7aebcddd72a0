"""Runs one script in a page through text-browser's /mcp, as an agent's MCP client would.

Usage: evaluate.py BASE_URL API_KEY PAGE_URL EXPRESSION — run by tests/api (egress) with the SDK
that .ci/setup pins (mcp==2.3.0 in .venv-mcp). It opens an MCP session, calls the `navigate` tool
with PAGE_URL and the `evaluate` tool with EXPRESSION, and prints the evaluate tool's text (the
JSON result) as the last line. Exits non-zero when a tool call fails.
"""

import asyncio
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

BASE, KEY, PAGE, EXPRESSION = sys.argv[1:5]


def text_of(result):
    return "\n".join(block.text for block in result.content if block.type == "text")


async def main():
    http_client = create_mcp_http_client(headers={"x-api-key": KEY})
    async with http_client as http, streamable_http_client(f"{BASE}/mcp", http_client=http) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            landed = await session.call_tool("navigate", {"url": PAGE})
            if landed.is_error:
                sys.exit(f"navigate failed: {text_of(landed)}")
            result = await session.call_tool("evaluate", {"expression": EXPRESSION})
            if result.is_error:
                sys.exit(f"evaluate failed: {text_of(result)}")
            print(text_of(result))


asyncio.run(main())
