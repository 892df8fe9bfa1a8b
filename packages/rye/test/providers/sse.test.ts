/** The text/event-stream parser: line ends, fields, dispatch rules, pieces of any size, the size cap. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { createSseParser, SseError } from "../../../../.ai/tools/rye/agent/threads/sse.mjs";

function parseAll(pieces: string[], options?: { maxEventBytes?: number }) {
  const parser = createSseParser(options);
  const events = pieces.flatMap((p) => parser.feed(p));
  const end = parser.end();
  return { events: [...events, ...end.events], unfinished: end.unfinished };
}

const STREAM =
  "\uFEFF: a comment\n" +
  "event: message_start\r\ndata: {\"a\":1}\r\n\r\n" +
  "data: line one\ndata: line two\n\n" +
  "id: 7\rdata:no space\r\r" +
  "event: empty\n\n" +
  "retry: 1000\nunknown: x\ndata\n\n" +
  "data:  two spaces\n\n";

const EXPECTED = [
  { event: "message_start", data: '{"a":1}', id: undefined },
  { event: "message", data: "line one\nline two", id: undefined },
  { event: "message", data: "no space", id: "7" },
  { event: "message", data: "", id: "7" },
  { event: "message", data: " two spaces", id: "7" },
];

describe("SSE parser", () => {
  it("reads events with CRLF, LF and CR line ends, comments, multi-line data, ids and defaults", () => {
    assert.deepEqual(parseAll([STREAM]), { events: EXPECTED, unfinished: false });
  });

  it("gives the same events however the text is cut into pieces (CRLF split across pieces included)", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: STREAM.length }), { maxLength: 12 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const pieces = [0, ...points].map((start, i) => STREAM.slice(start, points[i] ?? STREAM.length));
        assert.deepEqual(parseAll(pieces).events, EXPECTED);
      }),
    );
    assert.deepEqual(parseAll([...STREAM]).events, EXPECTED, "one character at a time");
  });

  it("discards an unfinished event at the end, and says so; a final CR still ends its line", () => {
    assert.deepEqual(parseAll(["data: complete\n\ndata: cut off"]), { events: [{ event: "message", data: "complete", id: undefined }], unfinished: true });
    assert.deepEqual(parseAll(["data: cut\n"]), { events: [], unfinished: true });
    assert.deepEqual(parseAll(["data: x\r\r"]).events, [{ event: "message", data: "x", id: undefined }]);
    assert.deepEqual(parseAll(["data: x\n\r"]).events, [{ event: "message", data: "x", id: undefined }]);
    assert.deepEqual(parseAll([""]), { events: [], unfinished: false });
  });

  it("refuses an event larger than maxEventBytes, also one that never ends its line", () => {
    assert.throws(() => parseAll([`data: ${"x".repeat(2000)}\n\n`], { maxEventBytes: 1000 }), (e: any) => e instanceof SseError && e.code === "event_too_large");
    const parser = createSseParser({ maxEventBytes: 1000 });
    assert.throws(() => {
      for (let i = 0; i < 100; i++) parser.feed("y".repeat(50));
    }, SseError);
    const lines = createSseParser({ maxEventBytes: 1000 });
    assert.throws(() => lines.feed(`${"data: 0123456789\n".repeat(100)}`), SseError, "many data lines of one event count together");
    assert.equal(parseAll([`${"data: 0123456789\n\n".repeat(500)}`], { maxEventBytes: 1000 }).events.length, 500, "the cap is per event");
  });
});
