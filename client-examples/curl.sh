#!/usr/bin/env bash
# The README's walkthrough as a script: create a session, open the fixtures' /projects page,
# read it, evaluate JavaScript, click and fill, pull the console and the failed requests, close.
# The Python, TypeScript and Rust clients beside it run the same scenario.
# Exits non-zero if any step does not do what it should.
#
#   TB_URL   the service's /rpc URL        (default http://127.0.0.1:3337/rpc)
#   API_KEY  the service's key             (required)
#   APP_URL  the fixtures app's base URL   (default http://127.0.0.1:3338)
set -euo pipefail
TB_URL=${TB_URL:-http://127.0.0.1:3337/rpc}
APP_URL=${APP_URL:-http://127.0.0.1:3338}
: "${API_KEY:?set API_KEY to the key of the service}"

rpc() { # rpc METHOD PARAMS_JSON -> prints the JSON-RPC response
  curl -sS "$TB_URL" -H "x-api-key: $API_KEY" -H 'content-type: application/json' \
    -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$1\",\"params\":$2}"
}
field() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
expect() { # expect WHAT RESPONSE NEEDLE
  if ! grep -qF -- "$3" <<<"$2"; then echo "FAIL: $1: expected $3 in: $2" >&2; exit 1; fi
  echo "ok: $1"
}

created=$(rpc session.create '{}')
SID=$(field '["result"]["session_id"]' <<<"$created")
expect "session.create" "$created" '"session_id"'

p='{"session_id":"'$SID'","url":"'$APP_URL'/projects","waitUntil":"networkidle"}'
r=$(rpc page.goto "$p")
expect "page.goto" "$r" '"title":"Projects"'

p='{"session_id":"'$SID'","selector":"#project-list"}'
r=$(rpc page.text "$p")
expect "page.text" "$r" 'Borealis API'

p='{"session_id":"'$SID'","expression":"document.querySelectorAll(\"li\").length"}'
r=$(rpc page.evaluate "$p")
expect "page.evaluate" "$r" '"result":3'

p='{"session_id":"'$SID'","expression":"(n) => n * 2","arg":21}'
r=$(rpc page.evaluate "$p")
expect "page.evaluate with arg" "$r" '"result":42'

p='{"session_id":"'$SID'","selector":"#new-project"}'
r=$(rpc page.click "$p")
expect "page.click" "$r" '"ok":true'

p='{"session_id":"'$SID'","selector":"#project-name","value":"Zephyr"}'
r=$(rpc page.fill "$p")
expect "page.fill" "$r" '"ok":true'
r=$(rpc page.text '{"session_id":"'$SID'","selector":"#preview"}')
expect "the page reacted" "$r" 'New project: Zephyr'

r=$(rpc logs.pull '{"session_id":"'$SID'"}')
expect "logs.pull" "$r" 'failed to load /api/fail: HTTP 500'

r=$(rpc network.pull '{"session_id":"'$SID'"}')
expect "network.pull" "$r" '"status":500'

p='{"session_id":"'$SID'"}'
r=$(rpc session.close "$p")
expect "session.close" "$r" '"ok":true'
r=$(rpc page.text "$p")
expect "closed session is gone" "$r" '"kind":"session_not_found"'
echo "curl example: all steps passed"
