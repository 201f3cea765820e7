// The APx explainer: builds a small synthetic campaign from the form, asks the apconform
// API to freeze its manifest and to evaluate the run, and shows what the kernel answered.
// Nothing is computed here but the request; every figure shown comes from the API.
"use strict";

const STARTING_SLOTS = [
  { hours: 2, accepted: true, safety: "pass", duplicateOf: "" },
  { hours: 2, accepted: true, safety: "pass", duplicateOf: "" },
  { hours: 1.5, accepted: false, safety: "pass", duplicateOf: "" },
  { hours: 3, accepted: true, safety: "unknown", duplicateOf: "" },
];
const SAFETY = ["pass", "fail", "unknown"];
let slots = STARTING_SLOTS.map((slot) => Object.assign({}, slot));
let pending = null;
let generation = 0;
let answered = 0;  // answers shown so far, in data-answers on <body>, so a reader's tools can wait

function slotId(index) {
  return "slot-" + String(index + 1).padStart(2, "0");
}

function digestOf(index) {
  // A well-formed SHA-256 text standing for the slot's deliverable: unique per slot.
  return (index + 1).toString(16).padStart(64, "0");
}

function element(tag, text) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  return node;
}

function renderSlots() {
  const body = document.querySelector("#slots tbody");
  body.replaceChildren();
  slots.forEach((slot, index) => {
    const row = element("tr");
    row.appendChild(element("th", slotId(index))).setAttribute("scope", "row");
    const hours = element("input");
    hours.type = "number";
    hours.min = "0.01";
    hours.step = "0.25";
    hours.value = String(slot.hours);
    hours.setAttribute("aria-label", "human hours of " + slotId(index));
    hours.addEventListener("input", () => { slot.hours = Number(hours.value); schedule(); });
    row.appendChild(element("td")).appendChild(hours);
    const accepted = element("input");
    accepted.type = "checkbox";
    accepted.checked = slot.accepted;
    accepted.setAttribute("aria-label", "accepted " + slotId(index));
    accepted.addEventListener("change", () => { slot.accepted = accepted.checked; schedule(); });
    row.appendChild(element("td")).appendChild(accepted);
    const safety = element("select");
    safety.setAttribute("aria-label", "safety of " + slotId(index));
    for (const value of SAFETY) {
      const option = element("option", value);
      option.value = value;
      option.selected = value === slot.safety;
      safety.appendChild(option);
    }
    safety.addEventListener("change", () => { slot.safety = safety.value; schedule(); });
    row.appendChild(element("td")).appendChild(safety);
    const duplicate = element("select");
    duplicate.setAttribute("aria-label", "same deliverable as, for " + slotId(index));
    const none = element("option", "(its own)");
    none.value = "";
    duplicate.appendChild(none);
    slots.forEach((_, other) => {
      if (other === index) return;
      const option = element("option", slotId(other));
      option.value = String(other);
      option.selected = String(other) === slot.duplicateOf;
      duplicate.appendChild(option);
    });
    duplicate.addEventListener("change", () => { slot.duplicateOf = duplicate.value; schedule(); });
    row.appendChild(element("td")).appendChild(duplicate);
    const remove = element("button", "Remove");
    remove.type = "button";
    remove.disabled = slots.length <= 1;
    remove.addEventListener("click", () => {
      slots.splice(index, 1);
      slots.forEach((s) => { s.duplicateOf = ""; });
      renderSlots();
      schedule();
    });
    row.appendChild(element("td")).appendChild(remove);
    body.appendChild(row);
  });
}

function draftManifest() {
  const slotList = slots.map((_, index) => ({ id: slotId(index), classId: "class-" + slotId(index) }));
  const attempts = slots.map((slot, index) => ({
    id: "attempt-" + slotId(index),
    classId: "class-" + slotId(index),
    hours: slot.hours,
    accepted: true,
  }));
  return {
    schemaVersion: "apx/0.1",
    suite: {
      id: "explainer-suite", version: "1", selectionId: "explainer-selection",
      holdoutId: "explainer-holdout", partition: "holdout", slots: slotList,
    },
    baseline: {
      id: "explainer-baseline", version: "1", kind: "synthetic",
      cohort: { id: "illustrative-cohort", tools: ["illustrative"], skills: ["illustrative"] },
      predeclaredAttemptIds: attempts.map((attempt) => attempt.id),
      attempts: attempts,
    },
    evaluator: { id: "explainer-evaluator", version: "1", qualityThreshold: 0.8 },
    environment: { id: "explainer", version: "1", description: "The APx explainer page; synthetic." },
  };
}

function run(manifest) {
  const wall = Number(document.getElementById("wall-hours").value);
  const outcomes = slots.map((slot, index) => {
    const source = slot.duplicateOf === "" ? index : Number(slot.duplicateOf);
    const artifact = digestOf(source);
    return {
      slotId: slotId(index),
      accepted: slot.accepted,
      quality: slot.accepted ? 1 : 0,
      safety: slot.safety,
      deliverableId: "deliverable-" + slotId(source),
      artifactHash: artifact,
      provenance: [{ id: "test-" + slotId(index), kind: "test-receipt", verification: "verified", hash: artifact }],
    };
  });
  return {
    id: "explainer-run", independenceId: "explainer-campaign", kind: "synthetic",
    partition: "holdout",
    suiteHash: manifest.suite.hash, baselineHash: manifest.baseline.hash,
    evaluatorHash: manifest.evaluator.hash, environmentHash: manifest.environment.hash,
    wallHours: wall, agentRuntimeHours: wall, humanReviewHours: 0,
    assistanceMode: "autonomous", costUSD: 0,
    wallBreakdown: { executionHours: wall, retryHours: 0, reviewHours: 0, blockingWaitHours: 0, otherHours: 0 },
    policyViolations: document.getElementById("policy-violation").checked
      ? ["unauthorized tool use (set on the explainer page)"] : [],
    outcomes: outcomes,
  };
}

function apiBase() {
  const given = document.getElementById("api-base").value.trim();
  if (given) return given.endsWith("/") ? given : given + "/";
  return new URL("../", window.location.href).href;
}

async function post(path, body) {
  const url = apiBase() + path;
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const type = response.headers.get("Content-Type") || "";
  if (!type.includes("json")) {
    // A documentation site or another server answered, not the apconform API.
    throw new Error("no apconform API answered at " + url + " (HTTP " + response.status + ")");
  }
  const answer = await response.json();
  if (!response.ok) {
    const where = answer.violations && answer.violations.length ? " (" + answer.violations[0].path + ")" : "";
    throw new Error((answer.code || response.status) + ": " + (answer.detail || "refused") + where);
  }
  return answer;
}

function show(id, text, className) {
  const node = document.getElementById(id);
  node.textContent = text;
  node.className = className || "";
}

function list(id, items) {
  const node = document.getElementById(id);
  node.replaceChildren(...(items.length ? items : ["none"]).map((text) => element("li", text)));
}

function display(result) {
  show("eligibility", result.eligibility, result.eligibility === "ELIGIBLE" ? "eligible" : "ineligible");
  show("ap", result.AP === null ? "null" : String(result.AP));
  show("apx", result.APx === null ? "null" : String(result.APx));
  show("diagnostic", String(result.diagnostic.AP) + " / " + (result.diagnostic.APx === null ? "null" : String(result.diagnostic.APx)));
  show("credited-hours", String(result.creditedHumanHours));
  show("acceptance", result.acceptedSlots + " of " + result.declaredSlots);
  show("explanation", result.explanation || "");
  list("credited", result.credited.map((item) => item.slotId + ": " + item.referenceHumanHours + " reference hours"));
  list("excluded", result.excluded.map((item) => item.slotId + ": " + item.reason));
  list("violations", result.policyViolations);
}

async function compute() {
  const mine = ++generation;
  show("status", "Computing...", "status");
  try {
    const manifest = await post("apx/freeze", draftManifest());
    const result = await post("apx/evaluate", { manifest: manifest, run: run(manifest) });
    if (mine !== generation) return;
    display(result);
    show("status", "Computed by the API: " + result.schemaVersion + ", " + result.status, "status");
  } catch (error) {
    if (mine !== generation) return;
    show("status", "The API could not score this campaign: " + error.message
      + ". Start it with: apconform serve, then open /v1/apx/explainer.", "status problem");
  }
  document.body.dataset.answers = String(++answered);
}

function schedule() {
  if (pending !== null) clearTimeout(pending);
  pending = setTimeout(() => { pending = null; compute(); }, 150);
}

document.getElementById("add-slot").addEventListener("click", () => {
  slots.push({ hours: 1, accepted: true, safety: "pass", duplicateOf: "" });
  renderSlots();
  schedule();
});
for (const id of ["wall-hours", "policy-violation", "api-base"]) {
  document.getElementById(id).addEventListener("input", schedule);
}
renderSlots();
compute();
