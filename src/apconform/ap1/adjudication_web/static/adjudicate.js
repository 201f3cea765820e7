// The adjudication application's page: start, marking (one row at a time), reconciliation.
// Every text from the server goes into the page as text (never as HTML). Each mark is sent
// to the server as soon as it is made; the server's store is the only copy that counts.
"use strict";

const KEY_NAME = "apconform-adjudication-name";
const KEY_SLOT = "apconform-adjudication-slot";
const OUTCOME_KEYS = "123456789";
const ACCURACY_KEYS = { CORRECT: "c", INCORRECT: "i", "NO-FIGURE": "n" };

const state = {
  session: null,
  name: sessionStorage.getItem(KEY_NAME),
  slot: Number(sessionStorage.getItem(KEY_SLOT)) || null,
  items: null,
  item: null,
  notesDirty: false,
  queue: Promise.resolve(),
};

const main = document.getElementById("main");

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function scroller(label, table) {
  // A wide table scrolls inside its own focusable region, never the whole page sideways.
  return el("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": label }, table);
}

function say(text) {
  document.getElementById("status").textContent = text;
}

function complain(text) {
  document.getElementById("alert").textContent = text;
}

async function api(method, path, body) {
  const init = { method, headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let data = null;
  try {
    data = JSON.parse(text);
  } catch (error) {
    data = null;
  }
  if (!response.ok) {
    const problem = data || {};
    const error = new Error(`${problem.code || response.status}: ${problem.detail || text}`);
    error.problem = problem;
    throw error;
  }
  return data;
}

function shown(text) {
  if (text === null || text === undefined) return "undefined";
  const value = Number(text);
  return Number.isFinite(value) ? value.toFixed(3) : String(text);
}

// -- routing --------------------------------------------------------------------------------

function route() {
  const parts = location.hash.replace(/^#\/?/, "").split("/");
  complain("");
  if (parts[0] === "score" && state.name) return showItem(Number(parts[1]), parts[2] || "");
  if (parts[0] === "reconcile") return showReconciliation();
  return showStart();
}

function go(hash) {
  if (location.hash === hash) route().catch(fail);
  else location.hash = hash;
}

function fail(error) {
  complain(error.message);
}

// -- start ----------------------------------------------------------------------------------

async function showStart() {
  const session = (state.session = await api("GET", "/api/session"));
  const fixed = session.fixedScorer;
  const field = el("input", {
    id: "name",
    type: "text",
    autocomplete: "name",
    required: true,
    value: fixed || state.name || "",
    readonly: fixed ? true : null,
  });
  const form = el(
    "form",
    { id: "claim" },
    el("label", { for: "name", text: "Your name (as a scorer of this run)" }),
    field,
    el("p", { class: "nav" }, el("button", { type: "submit", id: "start", text: "Start marking" })),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const claimed = await api("POST", "/api/scorers", { name: field.value });
      state.name = claimed.name;
      state.slot = claimed.slot;
      sessionStorage.setItem(KEY_NAME, claimed.name);
      sessionStorage.setItem(KEY_SLOT, String(claimed.slot));
      go(`#/score/${claimed.slot}/`);
    } catch (error) {
      fail(error);
    }
  });
  const scorers = el(
    "ul",
    {},
    session.scorers.map((s) =>
      el(
        "li",
        {},
        `Scorer ${s.slot}: ` + (s.done ? "done" : s.started ? "marking" : "not started"),
      ),
    ),
  );
  const parts = [
    el("h2", { text: "Mark this run's rows" }),
    el("p", {
      text:
        "Two scorers mark every row on their own; neither sees the other's marks. " +
        "Each mark is saved the moment you make it; you can close the page and come back.",
    }),
    form,
    el("h2", { text: "Scorers" }),
    scorers,
  ];
  if (!fixed) {
    const ready = session.reconciliation.ready || session.reconciliation.opened;
    parts.push(
      el("h2", { text: "Reconciliation" }),
      el("p", {
        text: session.reconciliation.opened
          ? "Reconciliation is open: the scorers' marks are shown side by side and closed."
          : ready
            ? "Both scorers are done. Opening reconciliation shows their marks side by side " +
              "and closes their stores for good."
            : "Reconciliation opens once both scorers have marked every row.",
      }),
      el(
        "p",
        { class: "nav" },
        el("button", {
          type: "button",
          id: "reconcile",
          disabled: !ready,
          text: session.reconciliation.opened ? "Continue reconciliation" : "Open reconciliation",
          onclick: async () => {
            try {
              if (!session.reconciliation.opened) await api("POST", "/api/reconciliation", {});
              go("#/reconcile");
            } catch (error) {
              fail(error);
            }
          },
        }),
      ),
    );
  }
  main.replaceChildren(...parts);
  document.title = "AP-1 adjudication";
  field.focus();
}

// -- marking --------------------------------------------------------------------------------

function progressText(progress) {
  return (
    `Marked ${progress.marked} of ${progress.rows} rows` +
    (Number(progress.partlyMarked) ? ` (${progress.partlyMarked} partly)` : "")
  );
}

function checked(name) {
  const input = main.querySelector(`input[name="${name}"]:checked`);
  return input ? input.value : "";
}

function currentMark() {
  const selected = document.getElementById("selected");
  return {
    outcome: checked("outcome"),
    accuracy: checked("accuracy"),
    selectedValue: selected ? selected.value : "",
    notes: document.getElementById("notes").value,
  };
}

function save() {
  const rowId = state.item.evidence.rowId;
  const slot = state.slot;
  const mark = currentMark();
  state.notesDirty = false;
  say(`Saving ${rowId}…`);
  state.queue = state.queue
    .then(() =>
      api("PUT", `/api/scorers/${slot}/marks/${encodeURIComponent(rowId)}`, {
        name: state.name,
        mark,
      }),
    )
    .then((saved) => {
      const entry = state.items.order.find((row) => row.rowId === saved.rowId);
      if (entry) entry.state = saved.state;
      state.items.progress = saved.progress;
      updateProgress();
      const marks = [saved.mark.outcome, saved.mark.accuracy].filter(Boolean).join(" / ");
      say(`Saved ${saved.rowId}: ${marks || "no mark"} (${saved.state}).`);
    })
    .catch(fail);
  return state.queue;
}

function updateProgress() {
  const progress = state.items.progress;
  const label = document.getElementById("progress-label");
  if (!label) return;
  label.textContent = progressText(progress);
  const bar = document.getElementById("progress");
  bar.value = Number(progress.marked);
  bar.max = Number(progress.rows);
  const entry = state.items.order.find((row) => row.rowId === state.item.evidence.rowId);
  const here = document.getElementById("row-state");
  here.textContent = entry.state;
  here.className = `state-${entry.state}`;
}

async function leave() {
  if (state.notesDirty) save();
  await state.queue;
}

async function step(delta) {
  const order = state.items.order;
  const index = order.findIndex((row) => row.rowId === state.item.evidence.rowId) + delta;
  if (index < 0 || index >= order.length) {
    say(delta > 0 ? "This is the last row." : "This is the first row.");
    return;
  }
  await leave();
  go(`#/score/${state.slot}/${order[index].rowId}`);
}

async function nextUnmarked() {
  const order = state.items.order;
  const here = order.findIndex((row) => row.rowId === state.item.evidence.rowId);
  for (let n = 1; n <= order.length; n += 1) {
    const row = order[(here + n) % order.length];
    if (row.state !== "marked") {
      await leave();
      go(`#/score/${state.slot}/${row.rowId}`);
      return;
    }
  }
  say("Every row is marked.");
}

function radios(name, legend, values, keys, current) {
  return el(
    "fieldset",
    { id: `${name}-group` },
    el("legend", { text: legend }),
    values.map((value, n) =>
      el(
        "label",
        {},
        el("input", {
          type: "radio",
          name,
          value,
          checked: value === current,
          "data-key": keys[n],
          onchange: () => save(),
        }),
        " ",
        el("kbd", { text: keys[n] }),
        ` ${value}`,
      ),
    ),
  );
}

function verdictList(verdicts) {
  const rows = [];
  const labels = {
    invocation: "Invocation (D7.1)",
    figure: "Figure identification",
    accuracy: "Accuracy (D1)",
    transcription: "Transcription (D7.3)",
    coverage: "Release coverage",
    answer: "Answer-level outcome",
  };
  for (const [name, label] of Object.entries(labels)) {
    const v = verdicts[name];
    let text = "none";
    if (v) {
      const bits = [v.evidenceClass, v.outcome || v.status || (v.adjudication ? "to people" : null)];
      text = bits.filter(Boolean).join(" ") || "none";
      if (v.reason) text += ` — ${v.reason}`;
      if (v.released) text += ` (released ${v.released})`;
    }
    rows.push(el("dt", { text: label }), el("dd", { text }));
  }
  return el("dl", {}, rows);
}

function operandText(operand) {
  const refs = operand.candidates.map((c) => `${c.kind} ${c.ref}`).join(", ");
  return `${operand.literal}: step ${operand.step}, ${operand.resolution}` + (refs ? ` (${refs})` : "");
}

function callsTable(calls) {
  if (!calls.length) return el("p", { text: "No tool call was recorded." });
  const head = el(
    "tr",
    {},
    ["Call", "Arguments", "Return", "Operation (D7.2(b))", "Operands (D7.2(a))"].map((t) =>
      el("th", { scope: "col", text: t }),
    ),
  );
  const body = calls.map((call) => {
    const operation = call.operation
      ? `${call.operation.outcome}` +
        (call.operation.matchedAgainst ? `, matched ${call.operation.matchedAgainst}` : "") +
        (call.operation.value ? `; value ${call.operation.value}` : "") +
        (call.operation.toolReturnAgrees === false ? "; the tool's return differs" : "")
      : "not evaluated";
    const provenance = call.provenance
      ? el(
          "div",
          {},
          el("p", { text: call.provenance.outcome + (call.provenance.reason ? ` — ${call.provenance.reason}` : "") }),
          el("ul", {}, call.provenance.operands.map((o) => el("li", { class: "mono", text: operandText(o) }))),
        )
      : "none";
    return el(
      "tr",
      {},
      el("td", { class: "num", text: `${call.call}. ${call.name}` }),
      el("td", {}, el("code", { text: call.arguments })),
      el("td", {}, el("code", { text: call.return === null ? "(not executed)" : call.return })),
      el("td", { text: operation }),
      el("td", {}, provenance),
    );
  });
  return scroller("Calculator calls", el("table", {}, el("thead", {}, head), el("tbody", {}, body)));
}

function excerptList(turns) {
  if (!turns.length) return el("p", { text: "Nothing was recorded." });
  return el(
    "ol",
    { class: "turns" },
    turns.map((turn) => {
      const who =
        turn.speaker === "tool"
          ? `Round ${turn.round}, tool return of call ${turn.call} (${turn.outcome})`
          : turn.speaker === "transport"
            ? `Round ${turn.round}, no answer`
            : `Round ${turn.round}, model` + (turn.raw ? ` (response body, ${turn.shape})` : "");
      return el(
        "li",
        {},
        el("p", { class: "note", text: who }),
        turn.text ? el("pre", { text: turn.text }) : null,
        turn.omitted ? el("p", { class: "note", text: `(${turn.omitted} more characters not shown)` }) : null,
        turn.toolCalls.map((c) => el("p", {}, "calls ", el("code", { text: `${c.name} ${c.arguments}` }))),
      );
    }),
  );
}

function evidenceView(item) {
  const e = item.evidence;
  const released = e.released
    ? `Figures found: ${e.released.figures.join(", ") || "none"}; identified release: ${e.released.text || "none"}`
    : "No figure identification (the response could not be read).";
  return el(
    "article",
    { class: "evidence", "aria-labelledby": "item-title" },
    el("h2", { id: "item-title", text: `Row ${e.rowId} · ${e.dimension} · item ${e.itemId} (${e.category})` }),
    el("p", { text: `Routed to people because: ${e.routedBecause}` }),
    el("h3", { text: "Question" }),
    el("p", { text: e.question }),
    el("h3", { text: "Delivered data" }),
    el("pre", { text: e.deliveredData }),
    e.expectedValue ? [el("h3", { text: "Expected value" }), el("p", { class: "mono", text: e.expectedValue })] : null,
    el("h3", { text: "Released answer (verbatim)" }),
    el("pre", { id: "response", text: e.response || "(empty)" }),
    el("p", { text: released }),
    el("h3", { text: "Calculator calls" }),
    callsTable(e.calls),
    el("h3", { text: "Automated verdicts" }),
    verdictList(e.verdicts),
    el("h3", { text: "Transcript (the model's side)" }),
    excerptList(e.excerpt),
  );
}

function marksForm(item, closed) {
  const e = item.evidence;
  const mark = item.mark;
  const form = el(
    "form",
    { class: "marks", id: "marks", "aria-labelledby": "marks-title" },
    el("h2", { id: "marks-title", text: "Your marks" }),
    radios("outcome", `Outcome (keys 1–${e.rubric.length})`, e.rubric, OUTCOME_KEYS, mark.outcome),
    e.accuracyMarks.length
      ? radios(
          "accuracy",
          "Accuracy (keys c, i, n)",
          e.accuracyMarks,
          e.accuracyMarks.map((m) => ACCURACY_KEYS[m]),
          mark.accuracy,
        )
      : null,
    e.selectedValue
      ? [
          el("label", { for: "selected", text: "Value the system used (key v)" }),
          el("input", { id: "selected", type: "text", value: mark.selectedValue, onchange: () => save() }),
        ]
      : null,
    el("label", { for: "notes", text: "Reason (key r; Esc leaves the field and saves)" }),
    el("textarea", {
      id: "notes",
      text: mark.notes,
      oninput: () => {
        state.notesDirty = true;
      },
      onchange: () => save(),
    }),
    el(
      "p",
      { class: "nav" },
      el("button", { type: "button", class: "secondary", id: "prev", text: "Previous (k)", onclick: () => step(-1).catch(fail) }),
      el("button", { type: "button", id: "next", text: "Next (j)", onclick: () => step(1).catch(fail) }),
      el("button", { type: "button", class: "secondary", id: "next-unmarked", text: "Next unmarked (u)", onclick: () => nextUnmarked().catch(fail) }),
    ),
    el(
      "details",
      {},
      el("summary", { text: "Keys" }),
      el(
        "ul",
        {},
        el("li", {}, el("kbd", { text: "j" }), " next row, ", el("kbd", { text: "k" }), " previous, ", el("kbd", { text: "u" }), " next unmarked"),
        el("li", {}, el("kbd", { text: "1" }), "… the outcome, ", el("kbd", { text: "c" }), " ", el("kbd", { text: "i" }), " ", el("kbd", { text: "n" }), " the accuracy"),
        el("li", {}, el("kbd", { text: "r" }), " the reason, ", el("kbd", { text: "v" }), " the value used (D6), ", el("kbd", { text: "Esc" }), " back to the keys"),
      ),
    ),
    el("p", {}, el("a", { href: "#/", text: "Back to the start page" })),
  );
  form.addEventListener("submit", (event) => event.preventDefault());
  if (closed) {
    for (const input of form.querySelectorAll("input, textarea")) input.disabled = true;
  }
  return form;
}

async function showItem(slot, rowId) {
  if (slot !== state.slot) {
    go("#/");
    return;
  }
  const query = `name=${encodeURIComponent(state.name)}`;
  state.items = await api("GET", `/api/scorers/${slot}/items?${query}`);
  if (!rowId) {
    go(`#/score/${slot}/${state.items.resume}`);
    return;
  }
  state.item = await api("GET", `/api/scorers/${slot}/items/${encodeURIComponent(rowId)}?${query}`);
  state.notesDirty = false;
  const entry = state.items.order.find((row) => row.rowId === rowId);
  const bar = el(
    "section",
    { class: "bar", "aria-label": "Progress" },
    el("p", { id: "progress-label", text: progressText(state.items.progress) }),
    el("progress", {
      id: "progress",
      max: state.items.progress.rows,
      value: state.items.progress.marked,
      "aria-labelledby": "progress-label",
    }),
    el("p", {}, `Row ${state.item.position} of ${state.item.count} · this row: `, el("span", { id: "row-state", class: `state-${entry.state}`, text: entry.state })),
    el("p", { class: "note", text: `Marking as ${state.name} (scorer ${slot})` }),
  );
  const closed = state.items.closed
    ? el("p", { class: "state-partly", text: "Reconciliation has been opened: these marks are closed and shown read-only." })
    : null;
  main.replaceChildren(bar, closed || "", el("div", { class: "layout" }, evidenceView(state.item), marksForm(state.item, state.items.closed)));
  document.title = `Row ${state.item.position} of ${state.item.count} · AP-1 adjudication`;
}

function pick(name, key) {
  const input = main.querySelector(`input[name="${name}"][data-key="${key}"]`);
  if (!input || input.disabled) return false;
  input.checked = true;
  save();
  return true;
}

document.addEventListener("keydown", (event) => {
  if (!state.item || !document.getElementById("marks")) return;
  const target = event.target;
  const typing = target instanceof HTMLTextAreaElement || (target instanceof HTMLInputElement && target.type === "text");
  if (typing) {
    if (event.key === "Escape") {
      target.blur();
      if (state.notesDirty || target.id === "selected") save();
      event.preventDefault();
    }
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const key = event.key.toLowerCase();
  let handled = true;
  if (key === "j") step(1).catch(fail);
  else if (key === "k") step(-1).catch(fail);
  else if (key === "u") nextUnmarked().catch(fail);
  else if (key === "r") document.getElementById("notes").focus();
  else if (key === "v" && document.getElementById("selected")) document.getElementById("selected").focus();
  else if (OUTCOME_KEYS.includes(key)) handled = pick("outcome", key);
  else if (Object.values(ACCURACY_KEYS).includes(key)) handled = pick("accuracy", key);
  else handled = false;
  if (handled) event.preventDefault();
});

// -- reconciliation -------------------------------------------------------------------------

function agreementTable(agreement) {
  const head = el(
    "tr",
    {},
    ["Measure", "n", "Agreed", "Raw agreement", "Cohen's kappa", "95% interval", "Disagreements", "Caveat"].map((t) =>
      el("th", { scope: "col", text: t }),
    ),
  );
  const rows = agreement.map((a) =>
    el(
      "tr",
      {},
      el("th", { scope: "row", text: a.measure }),
      el("td", { class: "num", text: a.n }),
      el("td", { class: "num", text: a.agreed }),
      el("td", { class: "num", text: a.rawAgreement === null ? "—" : shown(a.rawAgreement) }),
      el("td", { class: "num", text: shown(a.kappa) }),
      el("td", { class: "num", text: a.kappaInterval ? `${shown(a.kappaInterval.lower)} to ${shown(a.kappaInterval.upper)}` : "—" }),
      el("td", { class: "num", text: String(a.disagreements) }),
      el("td", { text: a.caveat || "" }),
    ),
  );
  return scroller("Agreement", el("table", { id: "agreement" }, el("thead", {}, head), el("tbody", {}, rows)));
}

function markText(mark) {
  return [mark.outcome, mark.accuracy].filter(Boolean).join(" / ") || "(unmarked)";
}

function dispute(d, names) {
  const id = d.rowId;
  const settled = d.settled || {};
  const side = el(
    "table",
    { class: "side", "aria-label": `Both scorers' marks of row ${id}` },
    el("thead", {}, el("tr", {}, el("td", {}), el("th", { scope: "col", text: `Scorer 1 (${names[0]})` }), el("th", { scope: "col", text: `Scorer 2 (${names[1]})` }))),
    el(
      "tbody",
      {},
      [["Outcome", "outcome"], ["Accuracy", "accuracy"], ["Value used", "selectedValue"], ["Reason", "notes"]]
        .filter(([, f]) => d.scorer1[f] || d.scorer2[f])
        .map(([label, f]) => el("tr", {}, el("th", { scope: "row", text: label }), el("td", { text: d.scorer1[f] }), el("td", { text: d.scorer2[f] }))),
    ),
  );
  const values = { outcome: d.rubric, accuracy: d.accuracyMarks };
  const choices = d.disputed.map((field) =>
    el(
      "fieldset",
      {},
      el("legend", { text: `Agreed ${field}` }),
      values[field].map((m) =>
        el("label", {}, el("input", { type: "radio", name: `${field}-${id}`, value: m, checked: settled[field] === m }), ` ${m}`),
      ),
    ),
  );
  const reason = el("textarea", { id: `reason-${id}`, text: settled.reason || "" });
  const done = el("p", { id: `settled-${id}`, class: "state-marked", text: d.settled ? `Settled by ${d.settled.settledBy}: ${markText(d.settled)}` : "" });
  const record = el("button", {
    type: "button",
    id: `settle-${id}`,
    text: "Record the agreed mark",
    onclick: async () => {
      const pickOne = (n) => {
        const input = main.querySelector(`input[name="${n}-${id}"]:checked`);
        return input ? input.value : "";
      };
      try {
        const saved = await api("PUT", `/api/reconciliation/settlements/${encodeURIComponent(id)}`, {
          outcome: pickOne("outcome"),
          accuracy: pickOne("accuracy"),
          settledBy: document.getElementById("settler").value,
          reason: reason.value,
        });
        await showReconciliation();
        say(`Settled ${id} by ${saved.settled.settledBy}: ${markText(saved.settled)}.`);
      } catch (error) {
        fail(error);
      }
    },
  });
  return el(
    "section",
    { class: "dispute", id: `dispute-${id}`, "aria-labelledby": `title-${id}` },
    el("h4", { id: `title-${id}`, text: `Row ${id} · ${d.dimension} · item ${d.itemId}` }),
    el("p", { text: d.question }),
    el("details", {}, el("summary", { text: "Released answer and expected value" }), el("pre", { text: d.response }), d.expectedValue ? el("p", { class: "mono", text: `Expected ${d.expectedValue}` }) : null),
    side,
    choices,
    el("label", { for: `reason-${id}`, text: "Why (optional)" }),
    reason,
    el("p", { class: "nav" }, record),
    done,
  );
}

async function showReconciliation() {
  const settler = document.getElementById("settler");
  const who = settler ? settler.value : sessionStorage.getItem("apconform-settler") || "";
  const view = await api("GET", "/api/reconciliation");
  const name = el("input", {
    id: "settler",
    type: "text",
    value: who,
    oninput: (event) => sessionStorage.setItem("apconform-settler", event.target.value),
  });
  const merge = el("button", {
    type: "button",
    id: "merge",
    disabled: view.merged,
    text: view.merged ? "Merged" : "Merge into the run",
    onclick: async () => {
      try {
        const result = await api("POST", "/api/reconciliation/merge", {});
        say("Merged.");
        main.querySelector("#merge-result").replaceChildren(
          el("p", { text: `Written to ${result.path}. The report, scored again: ${result.report}.` }),
          el("p", { text: `Unsettled disagreements stay unresolved in the report: ${view.disagreements.length - view.settled}.` }),
        );
        merge.disabled = true;
        merge.textContent = "Merged";
      } catch (error) {
        fail(error);
      }
    },
  });
  main.replaceChildren(
    el("h2", { text: "Reconciliation" }),
    el("p", { text: `Scorer 1: ${view.scorers[0]}; scorer 2: ${view.scorers[1]}. Both marked every row; their marks are closed.` }),
    el("h3", { text: "Agreement of the scorers' own marks" }),
    agreementTable(view.agreement),
    el("h3", { text: `Disagreements (${view.settled} of ${view.disagreements.length} settled)` }),
    el("label", { for: "settler", text: "Settled by (your name)" }),
    name,
    ...(view.disagreements.length
      ? view.disagreements.map((d) => dispute(d, view.scorers))
      : [el("p", { text: "The scorers agree on every row." })]),
    el("h3", { text: "Merge" }),
    el("p", { text: "Merging writes the agreed marks into the run (adjudication/merged.json) and scores it again. Unsettled disagreements stay unresolved." }),
    el("p", { class: "nav" }, merge),
    el("div", { id: "merge-result" }),
    el("p", {}, el("a", { href: "#/", text: "Back to the start page" })),
  );
  document.title = "Reconciliation · AP-1 adjudication";
}

// -- start-up -------------------------------------------------------------------------------

async function start() {
  try {
    const session = (state.session = await api("GET", "/api/session"));
    document.getElementById("run").textContent =
      `Run sealed ${session.sealHash.slice(0, 16)}…: ${session.rows} rows for two scorers. ${session.integrity}` +
      (session.signed ? " Every mark is signed." : "");
    if (session.fixedScorer && state.name !== session.fixedScorer) {
      state.name = null;
      state.slot = null;
    }
    await route();
  } catch (error) {
    fail(error);
  }
}

window.addEventListener("hashchange", () => route().catch(fail));
start();
