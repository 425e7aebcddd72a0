// text-browser from TypeScript on Node 20 (global fetch, no dependencies): the README scenario
// against the fixtures app. Run without a build step through tsx:
//
//   TB_URL=http://127.0.0.1:3337/rpc API_KEY=... APP_URL=http://127.0.0.1:3338 npx tsx typescript_client.ts
//
// Create a session, open /projects, read it, click and fill, pull the console and the failed
// requests, close. Exits non-zero on the first step that does not do what it should.

const TB_URL = process.env.TB_URL ?? "http://127.0.0.1:3337/rpc";
const API_KEY = process.env.API_KEY ?? "";
const APP_URL = process.env.APP_URL ?? "http://127.0.0.1:3338";

interface RpcErrorBody {
  code: number;
  message: string;
  data?: { kind?: string; remediation?: string };
}

class RpcError extends Error {
  constructor(readonly error: RpcErrorBody) {
    super(error.message);
  }
  get kind(): string | undefined {
    return this.error.data?.kind;
  }
}

let nextId = 1;

/** Calls one method; resolves to its result or rejects with an RpcError (kind, remediation). */
async function call<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}): Promise<T> {
  const response = await fetch(TB_URL, {
    method: "POST",
    headers: { "x-api-key": API_KEY, "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
  });
  const answer = (await response.json()) as { result?: T; error?: RpcErrorBody };
  if (answer.error) throw new RpcError(answer.error);
  return answer.result as T;
}

function check(what: string, condition: boolean, detail: unknown): void {
  if (!condition) {
    console.error(`FAIL: ${what}: ${JSON.stringify(detail)}`);
    process.exit(1);
  }
  console.log(`ok: ${what}`);
}

async function main(): Promise<void> {
  if (!API_KEY) throw new Error("set API_KEY to the key of the service");
  const { session_id } = await call<{ session_id: string }>("session.create");
  check("session.create", session_id.length > 0, session_id);
  const landed = await call<{ title: string }>("page.goto", {
    session_id,
    url: `${APP_URL}/projects`,
    waitUntil: "networkidle",
  });
  check("page.goto", landed.title === "Projects", landed);
  const list = await call<{ text: string }>("page.text", { session_id, selector: "#project-list" });
  check("page.text", list.text.includes("Borealis API"), list);
  const count = await call<{ result: unknown }>("page.evaluate", {
    session_id,
    expression: "document.querySelectorAll('li').length",
  });
  check("page.evaluate", count.result === 3, count);
  const clicked = await call<{ ok: boolean }>("page.click", { session_id, selector: "#new-project" });
  check("page.click", clicked.ok, clicked);
  const filled = await call<{ ok: boolean }>("page.fill", { session_id, selector: "#project-name", value: "Zephyr" });
  check("page.fill", filled.ok, filled);
  const preview = await call<{ text: string }>("page.text", { session_id, selector: "#preview" });
  check("the page reacted", preview.text === "New project: Zephyr", preview);
  const logs = await call<{ console: { text: string }[] }>("logs.pull", { session_id });
  check("logs.pull", logs.console.some((e) => e.text === "failed to load /api/fail: HTTP 500"), logs);
  const network = await call<{ requests: { url: string; status?: number }[] }>("network.pull", { session_id });
  check("network.pull", network.requests.some((r) => r.url.endsWith("/api/fail") && r.status === 500), network);
  const closed = await call<{ ok: boolean }>("session.close", { session_id });
  check("session.close", closed.ok, closed);
  try {
    await call("page.text", { session_id });
    check("closed session is gone", false, "it still answered");
  } catch (err) {
    check("closed session is gone", err instanceof RpcError && err.kind === "session_not_found", err);
  }
  console.log("typescript example: all steps passed");
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
