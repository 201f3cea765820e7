#!/usr/bin/env node
// A second, independent implementation of the kit's own operations (kit.*), in
// JavaScript for Node 20 with no dependencies, behind the adapter protocol.
//
//     apconform check --impl "exec:node examples/adapters/kit_adapter.js" --protocol kit
//
// It was written from the documentation (docs/kit/adapter-protocol.md, the
// vector format in docs/kit/index.md, spec/kit/*.md), not from the Python code,
// to show the contract is enough to build an implementation: RFC 8785 canonical
// JSON, SHA-256 digests, the bounded parser with every limit and error code,
// text hashing, Ed25519 signatures and the vector checks. stdout carries only
// answers, one JSON line each; anything else goes to stderr.

"use strict";

const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const readline = require("readline");

const PROTOCOL_VERSION = "apconform-adapter/1";
const OPERATIONS = {
  "kit.canonicalize": canonicalizeOperation,
  "kit.parse": parseOperation,
  "kit.hash_text": hashTextOperation,
  "kit.key_id": keyIdOperation,
  "kit.verify_signature": verifySignatureOperation,
  "kit.check_vector": checkVectorOperation,
};

// ---- refusals and paths ------------------------------------------------------------------

class Refusal extends Error {
  constructor(code, message, segments) {
    super(message);
    this.code = code;
    this.segments = segments; // undefined: no path; [] is "$"
  }
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

// The kit's path notation: $, .name for identifiers, ['odd key'] otherwise, [3] for indexes.
function formatPath(segments) {
  let out = "$";
  for (const segment of segments) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += `.${segment}`;
    else {
      const body = JSON.stringify(segment).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'");
      out += `['${body}']`;
    }
  }
  return out;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// ---- RFC 8785 canonical JSON and digests ----------------------------------------------------

function canonical(value, segments = []) {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) {
      throw new Refusal("APC-JCS-NONFINITE", "a number is not finite", segments);
    }
    return String(value); // ECMAScript's own spelling, as RFC 8785 requires (-0 is "0")
  }
  if (typeof value === "string") {
    if (LONE_SURROGATE.test(value)) {
      throw new Refusal("APC-JCS-SURROGATE", "a string holds a lone surrogate", segments);
    }
    return JSON.stringify(value); // JSON.stringify escapes exactly as RFC 8785 requires
  }
  if (Array.isArray(value)) {
    return "[" + value.map((item, index) => canonical(item, [...segments, index])).join(",") + "]";
  }
  // Default sort compares UTF-16 code units, the order RFC 8785 prescribes.
  const keys = Object.keys(value).sort();
  return (
    "{" +
    keys
      .map((key) => {
        if (LONE_SURROGATE.test(key)) {
          throw new Refusal("APC-JCS-SURROGATE", "a member name holds a lone surrogate", [
            ...segments,
            key,
          ]);
        }
        return JSON.stringify(key) + ":" + canonical(value[key], [...segments, key]);
      })
      .join(",") +
    "}"
  );
}

function sha256Hex(data) {
  return crypto.createHash("sha256").update(data).digest("hex");
}

// KIT-HASH-1: a string's own UTF-8 bytes, any other value's canonical text.
function digest(value) {
  if (typeof value === "string") {
    if (LONE_SURROGATE.test(value)) {
      throw new Refusal("APC-JCS-SURROGATE", "a string holds a lone surrogate", []);
    }
    return sha256Hex(Buffer.from(value, "utf8"));
  }
  return sha256Hex(Buffer.from(canonical(value), "utf8"));
}

// ---- the bounded parser (KIT-LOAD-1..5) ---------------------------------------------------

const LIMITS = { bytes: 1048576, depth: 32, nodes: 100000, numberChars: 100 };

class BoundedParser {
  constructor(text) {
    this.text = text;
    this.at = 0;
    this.nodes = 0;
  }

  fail(code, message, segments) {
    throw new Refusal(code, message, segments);
  }

  syntax(what) {
    const before = this.text.slice(0, this.at);
    const line = before.split("\n").length;
    const column = this.at - before.lastIndexOf("\n");
    this.fail("APC-JSON-SYNTAX", `line ${line} column ${column}: ${what}`, undefined);
  }

  space() {
    while (this.at < this.text.length && " \t\n\r".includes(this.text[this.at])) this.at += 1;
  }

  document() {
    this.space();
    const value = this.value(0, []);
    this.space();
    if (this.at !== this.text.length) this.syntax("extra data after the document");
    return value;
  }

  value(depth, segments) {
    this.nodes += 1;
    if (this.nodes > LIMITS.nodes) {
      this.fail("APC-JSON-NODES", `more than ${LIMITS.nodes} values`, segments);
    }
    if (depth > LIMITS.depth) {
      this.fail("APC-JSON-DEPTH", `a value at depth ${depth} is deeper than ${LIMITS.depth}`, segments);
    }
    const char = this.text[this.at];
    if (char === "{") return this.object(depth, segments);
    if (char === "[") return this.array(depth, segments);
    if (char === '"') return this.string(segments);
    if (char === "-" || (char >= "0" && char <= "9")) return this.number(segments);
    for (const [word, result] of [["true", true], ["false", false], ["null", null]]) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return result;
      }
    }
    for (const word of ["NaN", "Infinity"]) {
      if (this.text.startsWith(word, this.at)) {
        this.fail("APC-JSON-NONFINITE", `${word} is not a JSON number`, segments);
      }
    }
    return this.syntax("expecting a value");
  }

  object(depth, segments) {
    this.at += 1;
    const result = Object.create(null);
    const seen = new Set();
    this.space();
    if (this.text[this.at] === "}") {
      this.at += 1;
      return {};
    }
    for (;;) {
      this.space();
      if (this.text[this.at] !== '"') this.syntax("expecting a member name in double quotes");
      const key = this.string(segments, true);
      this.space();
      if (this.text[this.at] !== ":") this.syntax("expecting ':'");
      this.at += 1;
      this.space();
      const child = [...segments, key];
      if (seen.has(key)) {
        this.fail("APC-JSON-DUPLICATE-KEY", `the member name ${JSON.stringify(key)} repeats`, child);
      }
      seen.add(key);
      result[key] = this.value(depth + 1, child);
      this.space();
      if (this.text[this.at] === ",") {
        this.at += 1;
        continue;
      }
      if (this.text[this.at] === "}") {
        this.at += 1;
        return Object.assign({}, result);
      }
      this.syntax("expecting ',' or '}'");
    }
  }

  array(depth, segments) {
    this.at += 1;
    const result = [];
    this.space();
    if (this.text[this.at] === "]") {
      this.at += 1;
      return result;
    }
    for (;;) {
      this.space();
      result.push(this.value(depth + 1, [...segments, result.length]));
      this.space();
      if (this.text[this.at] === ",") {
        this.at += 1;
        continue;
      }
      if (this.text[this.at] === "]") {
        this.at += 1;
        return result;
      }
      this.syntax("expecting ',' or ']'");
    }
  }

  string(segments, isKey = false) {
    const start = this.at;
    this.at += 1;
    for (;;) {
      const char = this.text[this.at];
      if (char === undefined) this.syntax("unterminated string");
      if (char === '"') break;
      if (char === "\\") this.at += 2;
      else if (char < " ") this.syntax("control character in a string");
      else this.at += 1;
    }
    this.at += 1;
    let decoded;
    try {
      decoded = JSON.parse(this.text.slice(start, this.at));
    } catch (error) {
      this.syntax("invalid string escape");
    }
    if (LONE_SURROGATE.test(decoded)) {
      const where = isKey ? [...segments, decoded] : segments;
      this.fail("APC-JSON-SURROGATE", "a string holds a lone surrogate", where);
    }
    return decoded;
  }

  number(segments) {
    const match = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(this.text.slice(this.at));
    if (match === null) this.syntax("invalid number");
    const literal = match[0];
    this.at += literal.length;
    if (literal.length > LIMITS.numberChars) {
      this.fail("APC-JSON-NUMBER", `a number literal of ${literal.length} characters`, segments);
    }
    const value = Number(literal); // the nearest double, whatever the digits (KIT-LOAD-5)
    if (!Number.isFinite(value)) {
      this.fail("APC-JSON-NUMBER", `${literal} overflows a double`, segments);
    }
    const mantissa = literal.toLowerCase().split("e")[0];
    if (value === 0 && /[1-9]/.test(mantissa)) {
      this.fail("APC-JSON-NUMBER", `${literal} is not zero but underflows to 0`, segments);
    }
    return value;
  }
}

function parseBounded(text, padToBytes) {
  let bytes = Buffer.byteLength(text, "utf8");
  if (padToBytes !== undefined) {
    if (padToBytes > LIMITS.bytes) {
      throw new Refusal("APC-JSON-SIZE", `the document is ${padToBytes} bytes`, []);
    }
    if (padToBytes > bytes) {
      text += " ".repeat(padToBytes - bytes);
      bytes = padToBytes;
    }
  }
  if (bytes > LIMITS.bytes) {
    throw new Refusal("APC-JSON-SIZE", `the document is ${bytes} bytes`, []);
  }
  if (text.startsWith("\uFEFF")) {
    throw new Refusal("APC-JSON-BOM", "the document starts with a byte order mark", []);
  }
  return new BoundedParser(text).document();
}

// ---- operation inputs -------------------------------------------------------------------

function member(input, name, type) {
  if (input === null || typeof input !== "object" || Array.isArray(input) || !(name in input)) {
    throw new Refusal("APC-OP-INPUT", `the input needs a member '${name}'`, [name]);
  }
  const found = input[name];
  const actual = Array.isArray(found) ? "array" : found === null ? "null" : typeof found;
  const ok = type === "any" || actual === type || (type === "integer" && Number.isInteger(found));
  if (!ok) throw new Refusal("APC-OP-INPUT", `input member '${name}' must be a JSON ${type}`, [name]);
  return found;
}

// ---- the operations ---------------------------------------------------------------------

function canonicalizeOperation(input) {
  const value = member(input, "value", "any");
  return { canonical: canonical(value), sha256: digest(value) };
}

function parseOperation(input) {
  const text = member(input, "text", "string");
  const pad = "padToBytes" in input ? member(input, "padToBytes", "integer") : undefined;
  return { canonical: canonical(parseBounded(text, pad)) };
}

function hashTextOperation(input) {
  const text = member(input, "text", "string").replace(/\r\n?/g, "\n");
  return { method: "sha256-utf8-lf", sha256: digest(text) };
}

const HEX64 = /^[0-9a-f]{64}$/;

function keyId(publicKey) {
  if (typeof publicKey !== "string" || !HEX64.test(publicKey)) {
    throw new Refusal("APC-KEY-PUBLIC", "a public key is 64 lowercase hex characters", []);
  }
  return "ed25519:" + sha256Hex(Buffer.from(publicKey, "hex")).slice(0, 16);
}

function keyIdOperation(input) {
  return { keyId: keyId(member(input, "publicKey", "string")) };
}

const SIGNATURE_FORMS = {
  algorithm: /^ed25519$/,
  keyId: /^ed25519:[0-9a-f]{16}$/,
  publicKey: HEX64,
  signature: /^[0-9a-f]{128}$/,
};
const PUBLISHED_TEST_KEY = "bf5a2b8310cf77bfa31a77d46cf7070754307ece3d1bea496751fc3964cbc662";
const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

function verifySignatureOperation(input) {
  const document = member(input, "document", "object");
  if (!("signature" in document)) {
    throw new Refusal("APC-SIG-MISSING", "the document has no 'signature' member", ["signature"]);
  }
  const signature = document.signature;
  const where = ["signature"];
  if (signature === null || typeof signature !== "object" || Array.isArray(signature)) {
    throw new Refusal("APC-SIG-MALFORMED", "the signature must be an object", where);
  }
  for (const field of Object.keys(SIGNATURE_FORMS)) {
    if (!(field in signature)) {
      throw new Refusal("APC-SIG-MALFORMED", `no '${field}' field`, [...where, field]);
    }
  }
  for (const field of Object.keys(signature)) {
    if (!(field in SIGNATURE_FORMS)) {
      throw new Refusal("APC-SIG-MALFORMED", `unexpected field '${field}'`, [...where, field]);
    }
  }
  for (const [field, form] of Object.entries(SIGNATURE_FORMS)) {
    if (typeof signature[field] !== "string" || !form.test(signature[field])) {
      throw new Refusal("APC-SIG-MALFORMED", `${field} has the wrong form`, [...where, field]);
    }
  }
  const expectedId = keyId(signature.publicKey);
  if (signature.keyId !== expectedId) {
    throw new Refusal("APC-SIG-KEY-ID", `keyId does not match the key (${expectedId})`, [
      ...where,
      "keyId",
    ]);
  }
  const body = Object.assign({}, document);
  delete body.signature;
  const key = crypto.createPublicKey({
    key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(signature.publicKey, "hex")]),
    format: "der",
    type: "spki",
  });
  const data = Buffer.from(canonical(body), "utf8");
  if (!crypto.verify(null, data, key, Buffer.from(signature.signature, "hex"))) {
    throw new Refusal("APC-SIG-INVALID", "the signature does not match the data", [
      ...where,
      "signature",
    ]);
  }
  if (!("trustedKeys" in input)) {
    return { valid: true, keyId: expectedId };
  }
  // KIT-SIG-4: the keys named are trusted, and they replace the published TEST key, which is
  // trusted only when none is named; the data is checked first (KIT-SIG-5).
  const named = member(input, "trustedKeys", "array");
  const trusted = named.length > 0 ? named : [PUBLISHED_TEST_KEY];
  if (!trusted.includes(signature.publicKey)) {
    throw new Refusal("APC-SIG-UNTRUSTED", `the signing key ${expectedId} is not trusted`, [
      ...where,
      "publicKey",
    ]);
  }
  return {
    valid: true,
    keyId: expectedId,
    trust: named.length > 0 ? "named-key" : "published-test-key",
  };
}

// The vector rules of docs/kit/index.md, against the clause registry in spec/clauses.json.
let clauseStatus = null;

function clauses() {
  if (clauseStatus === null) {
    const file = path.join(__dirname, "..", "..", "spec", "clauses.json");
    const registry = JSON.parse(fs.readFileSync(file, "utf8"));
    clauseStatus = new Map(registry.clauses.map((clause) => [clause.id, clause.status]));
  }
  return clauseStatus;
}

const VECTOR_MEMBERS = {
  schemaVersion: "string",
  id: "string",
  protocol: "string",
  protocolVersion: "string",
  clauses: "array",
  operation: "string",
  description: "string",
  input: "any",
  expected: "object",
};

function refuseVector(message, segments) {
  throw new Refusal("APC-DOC-REFUSED", message, segments);
}

function checkVectorOperation(input) {
  const fileName = member(input, "fileName", "string");
  const vector = member(input, "vector", "any");
  if (vector === null || typeof vector !== "object" || Array.isArray(vector)) {
    refuseVector("a vector is a JSON object", []);
  }
  for (const [name, type] of Object.entries(VECTOR_MEMBERS)) {
    if (!(name in vector)) refuseVector(`the member '${name}' is required`, [name]);
    const actual = Array.isArray(vector[name]) ? "array" : vector[name] === null ? "null" : typeof vector[name];
    if (type !== "any" && actual !== type) refuseVector(`'${name}' must be a JSON ${type}`, [name]);
  }
  if (vector.schemaVersion !== "apconform-vector/1") {
    refuseVector("schemaVersion must be apconform-vector/1", ["schemaVersion"]);
  }
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(vector.id) || vector.id.length > 128) {
    refuseVector("the id has the wrong form", ["id"]);
  }
  if (!["apx", "ap1", "kit"].includes(vector.protocol)) refuseVector("unknown protocol", ["protocol"]);
  if (!/^(apx|ap1|kit)\.[a-z][a-z0-9_]*$/.test(vector.operation)) {
    refuseVector("the operation has the wrong form", ["operation"]);
  }
  const expected = vector.expected;
  const needs = { exact: "document", refusal: "errorCode", partial: "matchers" };
  if (!(expected.kind in needs)) refuseVector("unknown expectation kind", ["expected", "kind"]);
  if (!(needs[expected.kind] in expected)) {
    refuseVector(`a ${expected.kind} expectation needs ${needs[expected.kind]}`, ["expected"]);
  }
  if (vector.clauses.length === 0) refuseVector("at least one clause", ["clauses"]);
  vector.clauses.forEach((id, index) => {
    const status = clauses().get(id);
    if (status === undefined) refuseVector(`clause ${id} is not in the registry`, ["clauses", index]);
    if (status === "retired") refuseVector(`clause ${id} is retired`, ["clauses", index]);
  });
  if (`${vector.id}.json` !== fileName) {
    refuseVector(`the id ${vector.id} differs from the file name ${fileName}`, ["id"]);
  }
  const tags = Array.isArray(vector.tags) ? vector.tags : [];
  return {
    id: vector.id,
    protocol: vector.protocol,
    negative: expected.kind === "refusal" || tags.includes("negative"),
  };
}

// ---- the adapter protocol ---------------------------------------------------------------

function started() {
  return {
    version: PROTOCOL_VERSION,
    implementation: {
      name: "apconform-example-js",
      version: "0.1.0",
      language: "javascript",
      homepage: "https://w3id.org/apconform",
      protocols: ["kit"],
      operations: Object.keys(OPERATIONS).sort(),
    },
  };
}

function run(seq, operation, input) {
  const handler = OPERATIONS[operation];
  if (handler === undefined) {
    return { seq, skipped: { reason: `${operation} is not implemented in JavaScript` } };
  }
  try {
    return { seq, answer: handler(input) };
  } catch (error) {
    if (error instanceof Refusal) {
      const refusal = { code: error.code, message: error.message };
      if (error.segments !== undefined) refusal.path = formatPath(error.segments);
      return { seq, refusal };
    }
    return { seq, errored: { message: String(error), context: { stack: String(error.stack) } } };
  }
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  const message = JSON.parse(line);
  if (message.cmd === "start") send(started());
  else if (message.cmd === "run") send(run(message.seq, message.operation, message.input));
  else if (message.cmd === "stop") process.exit(0);
  else {
    process.stderr.write(`unknown command ${JSON.stringify(message.cmd)}\n`);
    process.exit(2);
  }
});
lines.on("close", () => process.exit(0));
