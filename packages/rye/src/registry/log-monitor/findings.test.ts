/** Which entries the monitor reports, and why. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type AllowedSet, findingFor, type LogEntry } from "./findings.ts";

const K = "a".repeat(16);
const allowed: AllowedSet = { keys: new Set([K]), publishers: new Set(), credentials: new Set() };
const publish = (payload: Record<string, unknown>, kind = "publish"): LogEntry => ({
  index: 7,
  kind,
  payload: { kind: "item", item_type: "tool", id: "alice/x/y", version: "1.0.0", publisher: "alice", author_key: K, credential: { via: "token", token_id: "t1" }, ...payload },
});

test("the namespace's own signed publish is not reported; other namespaces, private digests and other kinds are not looked at", () => {
  assert.equal(findingFor(publish({}), "alice", allowed), null);
  assert.equal(findingFor(publish({ id: "alicia/x/y", author_key: null }), "alice", allowed), null, "a prefix of another namespace's name");
  assert.equal(findingFor({ index: 1, kind: "publish", payload: { kind: "item", private: true, subject_digest: "00" } }, "alice", allowed), null);
  assert.equal(findingFor(publish({ author_key: null }, "yank"), "alice", allowed), null);
});

test("each reason, in order", () => {
  assert.deepEqual(findingFor(publish({ author_key: "b".repeat(16) }), "alice", allowed)?.reasons, ["unregistered_key"]);
  assert.deepEqual(findingFor(publish({ author_key: null }), "alice", allowed)?.reasons, ["unsigned"]);
  const legacy = publish({});
  delete legacy.payload.author_key;
  assert.deepEqual(findingFor(legacy, "alice", allowed)?.reasons, ["unattributed"]);
  const strict: AllowedSet = { ...allowed, publishers: new Set(["bob"]), credentials: new Set(["t2"]) };
  const f = findingFor(publish({ author_key: null }), "alice", strict)!;
  assert.deepEqual([f.reason, f.reasons], ["unsigned", ["unsigned", "unknown_publisher", "unknown_credential"]]);
  assert.equal(findingFor(publish({ credential: { via: "session", session_id: "t2" }, publisher: "bob" }), "alice", strict), null, "a session id is a credential id too");
  assert.equal(findingFor(publish({ actor: "carol", publisher: undefined, credential: undefined }, "approve"), "alice", strict), null, "an approval names its approver, not the publisher or credential");
  assert.deepEqual(findingFor(publish({ kind: "bundle", id: "alice/kit", author_key: "c".repeat(16) }), "alice", allowed)?.item, "bundle alice/kit");
});
