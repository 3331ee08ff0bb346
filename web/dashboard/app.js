// CAESAR dashboard (docs/dashboard.md). Plain browser script, no framework, no inline code
// (the page's Content-Security-Policy allows only this file). Every piece of data comes
// from the token-guarded API with `Authorization: Bearer`; the token lives in this tab's
// sessionStorage only. Text from the API is always set with textContent, never as HTML.

const TOKEN_KEY = 'caesar.token';
const SESSION_KEY = 'caesar.session';
/** Rows the live tail keeps on screen. */
const MAX_EVENT_ROWS = 200;
/** Rows of history shown before the live tail starts. */
const BACKLOG_ROWS = 20;
/** An event-stream frame larger than this ends the stream (a broken server, not a row). */
const MAX_FRAME_CHARS = 1_048_576;
const REFRESH_MS = 15_000;

const $ = (id) => {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`dashboard: no element #${id}`);
  return el;
};

/** A non-2xx answer of the API, with its catalogue code. */
class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

let session = null; // { abort: AbortController, timers: [] } while logged in

function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

/** One API call; JSON in and out. `accept` lists statuses that are answers, not errors. */
async function api(method, path, body, { bearer = token(), accept = [] } = {}) {
  const headers = { authorization: `Bearer ${bearer}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
    credentials: 'omit',
    signal: session?.abort.signal,
  });
  const text = await res.text();
  let data = text;
  try {
    data = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  if (res.ok || accept.includes(res.status)) return data;
  const err = data?.error ?? {};
  if (res.status === 401 && session !== null) logout('The brain no longer accepts this token.');
  throw new ApiError(res.status, err.code ?? 'http_' + res.status, err.message ?? text);
}

/**
 * A run of separators inside a word: `_`, `.`, `/`, `-`, `:`, followed by more of the word.
 * Long identifiers (`CAESAR_TOOLS__WEB_SEARCH__SEARXNG_URL`, `light.living_room`, URLs) may
 * break after it, and nowhere else (docs/dashboard.md, "What it shows": "On a phone").
 */
const SEPARATORS = /[_./:-]+(?=[^\s_./:-])/g;

/**
 * `text` as nodes: strings (which `append` makes Text nodes, never HTML) with a `<wbr>` after
 * each run of separators inside a word, so a narrow screen breaks an identifier there rather
 * than mid-word. `textContent` reads back exactly `text`.
 */
function textParts(text) {
  const parts = [];
  let from = 0;
  for (const m of text.matchAll(SEPARATORS)) {
    const end = m.index + m[0].length;
    parts.push(text.slice(from, end), document.createElement('wbr'));
    from = end;
  }
  parts.push(text.slice(from));
  return parts;
}

/** Sets `text` as the node's content (see textParts). */
function setText(node, text) {
  node.replaceChildren(...textParts(text));
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) setText(node, String(text));
  if (className) node.className = className;
  return node;
}

function badge(text, tone) {
  return el('span', text, `badge ${tone}`);
}

function toneOf(word) {
  if (['ok', 'allow', 'allowed', 'ready', 'true'].includes(String(word))) return 'good';
  if (['confirm', 'pending', 'stale', 'unknown', 'not_configured', 'confirmed'].includes(word))
    return 'warn';
  return 'bad';
}

function short(value, max = 240) {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined) return '';
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function when(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleTimeString();
}

/** Why a panel could not load, in words (a missing scope says which). */
function why(err) {
  if (err instanceof ApiError && err.status === 403) return err.message;
  if (err instanceof ApiError) return `${err.code}: ${err.message}`;
  return String(err?.message ?? err);
}

// ---- login -------------------------------------------------------------------------------

async function login(candidate) {
  // any valid token may read /readyz: a wrong one is 401 here, before it is stored
  await api('GET', '/readyz', undefined, { bearer: candidate, accept: [503] });
  sessionStorage.setItem(TOKEN_KEY, candidate);
  start();
}

function showLogin(message) {
  $('board').hidden = true;
  $('held').hidden = true;
  $('logout').hidden = true;
  $('whoami').textContent = '';
  $('login').hidden = false;
  $('login-error').hidden = message === undefined;
  $('login-error').textContent = message ?? '';
}

function logout(message) {
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(SESSION_KEY);
  if (session !== null) {
    session.abort.abort();
    session.timers.forEach(clearInterval);
    session = null;
  }
  showLogin(message);
}

function start() {
  session = { abort: new AbortController(), timers: [] };
  $('login').hidden = true;
  $('board').hidden = false;
  $('logout').hidden = false;
  $('whoami').textContent = 'logged in';
  void showWhoami();
  void refreshStatus();
  void refreshTools();
  void refreshConfirmations();
  void refreshJobs();
  void refreshPolicy();
  void startTail(session.abort.signal);
  session.timers.push(
    setInterval(() => {
      void refreshStatus();
      void refreshTools();
      void refreshConfirmations();
      void refreshJobs();
      void refreshPolicy();
    }, REFRESH_MS),
  );
}

/** The header names the token this tab uses (`GET /v1/whoami`; a brain before it: "logged in"). */
async function showWhoami() {
  try {
    const me = await api('GET', '/v1/whoami', undefined, { accept: [404] });
    if (typeof me?.name === 'string') setText($('whoami'), `token ${me.name}`);
  } catch {
    // the header keeps "logged in"; the panels say what is wrong
  }
}

// ---- status and tools --------------------------------------------------------------------

async function refreshStatus() {
  const list = $('status');
  try {
    const r = await api('GET', '/readyz', undefined, { accept: [503] });
    list.replaceChildren(
      ...Object.entries(r.checks ?? {}).map(([name, check]) => {
        const li = el('li', name);
        li.dataset.check = name;
        if (!check.ok) li.append(badge('not ready', 'bad'));
        else if (check.warning) li.append(badge('warning', 'warn'));
        else li.append(badge('ok', 'good'));
        // a working part that needs attention (a broken policy edit): said in words, not a tooltip
        if (check.warning) li.append(el('div', check.warning, 'muted'));
        if (check.detail) li.title = check.detail;
        return li;
      }),
    );
  } catch (err) {
    list.replaceChildren(el('li', why(err), 'error'));
  }
}

function toolItem(tool) {
  const li = el('li');
  li.dataset.tool = tool.name;
  li.append(el('span', tool.name, 'name'));
  // a catalog-only stub (ADR 0090): listed, no worker, never callable
  if (tool.state === 'planned') {
    li.dataset.state = 'planned';
    li.append(badge('planned', 'warn'));
    li.append(
      el(
        'div',
        `${tool.planned.purpose} (planned: the catalog lists it, nothing serves it)`,
        'muted',
      ),
    );
    return li;
  }
  li.append(badge(`policy: ${tool.policy.outcome}`, toneOf(tool.policy.outcome)));
  li.append(badge(`preflight: ${tool.preflight.state}`, toneOf(tool.preflight.state)));
  const hosts = tool.instances.map((i) => `${i.host} (${i.id}, v${i.version}${capacityText(i)})`);
  li.append(el('div', `${tool.instances.length} instance(s): ${hosts.join(', ')}`, 'muted'));
  for (const i of tool.instances) if (i.restarts) li.append(restartsLine(i));
  for (const line of tool.preflight.detail) li.append(el('div', line, 'muted'));
  return li;
}

/**
 * An instance `caesar up` restarted (ADR 0070): how many times, why the last time and when.
 * The host and id are what the worker says about itself: text, like everything else here.
 */
/** What the instance's host has, as it declared it (ADR 0091); nothing from an older worker. */
function capacityText(instance) {
  const c = instance.capacity;
  if (!c) return '';
  const gpus = c.gpus.map((g) => `${g.count} ${g.kind}`).join(', ') || 'no GPU found';
  return `; ${c.vcpus} vCPUs, ${c.memory_gb} GB, ${gpus}`;
}

function restartsLine(instance) {
  const r = instance.restarts;
  const line = el(
    'div',
    `${instance.host} (${instance.id}): restarted ${r.count}x, last: ${r.last_reason} at ${r.last_at}`,
    'restarts',
  );
  line.dataset.instance = instance.id;
  return line;
}

async function refreshTools() {
  try {
    const tools = await api('GET', '/v1/tools');
    $('tools-note').textContent = tools.length === 0 ? 'No tool worker is connected.' : '';
    $('tools').replaceChildren(...tools.map(toolItem));
  } catch (err) {
    $('tools-note').textContent = why(err);
  }
}

// ---- confirmations -----------------------------------------------------------------------

/**
 * Who asked for a held call, in words (ADR 0068; `caesar confirm` says the same,
 * src/cli/brain-client/held-call-lines.ts). A brain before issue 27 names only the token.
 */
function askedByText(c) {
  const a = c.asked_by;
  if (!a) return `token \`${c.requested_by}\``;
  const who = whoText(a.actor, a.principal);
  if (a.kind === 'api') return `${who} directly`;
  if (a.kind === 'intent') {
    return `the local rule \`${a.intent}\`, on a message of ${who}`;
  }
  const session = a.session_id ? ` (session ${a.session_id})` : '';
  return `a model, in a turn opened by ${who}${session}`;
}

/** A token, and its principal when that is another name (ADR 0096). */
function whoText(actor, principal) {
  if (!principal || principal === actor) return `token \`${actor}\``;
  return `principal \`${principal}\` (token \`${actor}\`)`;
}

/** Who may decide a held call whose rule names approvers. */
function approversText(a) {
  return [...a.principals.map((p) => `principal ${p}`), ...a.groups.map((g) => `group ${g}`)].join(
    ' or ',
  );
}

/** What the model had read before it asked: tool, trust, sources, and the excerpt as text. */
function readList(read) {
  const box = el('div', undefined, 'read');
  if (read.length === 0) {
    box.append(el('div', 'the model had read nothing untrusted or private', 'muted'));
    return box;
  }
  box.append(el('div', 'the model had read:', 'muted'));
  const list = el('ul');
  for (const r of read) {
    const item = el('li');
    const kinds = [r.trust === 'untrusted' ? 'untrusted' : '', r.private ? 'private' : ''];
    const what = kinds.filter((k) => k !== '').join(', ') || 'trusted';
    const from = r.sources.length > 0 ? ` from ${r.sources.join(', ')}` : '';
    item.append(el('div', `${r.tool} (${what})${from}`, 'read-what'));
    // the injected text is shown as the model read it: as text, never as markup
    if (r.excerpt) item.append(el('blockquote', r.excerpt, 'excerpt'));
    list.append(item);
  }
  box.append(list);
  return box;
}

function confirmationItem(c) {
  const li = el('li');
  li.dataset.id = c.id;
  li.append(el('span', c.tool, 'name'), badge(c.rule, 'warn'));
  li.append(el('div', c.summary, 'summary'));
  li.append(el('div', `asked by ${askedByText(c)}`, 'asked-by'));
  const at = c.rule_at ? ` (${c.rule_at})` : '';
  li.append(el('div', `held by rule ${c.rule}${at}: ${c.reason}`, 'held-by'));
  for (const g of c.gated_by ?? []) {
    const gate = `held by flow gate ${g.gate} (${g.action}), set by ${g.set_by}`;
    li.append(el('div', gate, 'held-by'));
  }
  // the tool's preflight asked (ADR 0091): a host or a limit the tool's requirements exceed
  for (const w of c.preflight_warnings ?? []) {
    li.append(el('div', `held by the tool's preflight: ${w}`, 'held-by'));
  }
  if (c.approvers) {
    const only = `decided by ${approversText(c.approvers)} only (the rule's approvers)`;
    li.append(el('div', only, 'held-by'));
  }
  const byModel = c.asked_by?.kind === 'model';
  if (byModel) li.append(readList(c.read ?? []));
  li.append(el('div', `expires ${when(c.expires_at)}`, 'muted'));
  const actions = el('div', undefined, 'actions');
  const buttons = [el('button', 'Approve'), el('button', 'Reject', 'secondary')];
  // only a model's call has a turn to stop (docs/dashboard.md)
  if (byModel) buttons.push(el('button', 'Reject and stop turn', 'secondary'));
  const decisions = [{ approve: true }, { approve: false }, { approve: false, stop_turn: true }];
  buttons.forEach((button, i) => {
    button.type = 'button';
    button.addEventListener('click', () => void decide(c, decisions[i], buttons));
  });
  actions.append(...buttons);
  li.append(actions);
  return li;
}

async function refreshConfirmations() {
  try {
    const pending = await api('GET', '/v1/confirmations');
    $('confirmations-note').textContent = pending.length === 0 ? 'Nothing is waiting.' : '';
    $('confirmations').replaceChildren(...pending.map(confirmationItem));
    showHeld(pending);
  } catch (err) {
    $('confirmations-note').textContent = why(err);
  }
}

// ---- jobs (ADR 0098) ----------------------------------------------------------------------

const JOB_TONES = {
  queued: 'warn',
  running: 'warn',
  finished: 'good',
  failed: 'bad',
  cancelled: 'bad',
};

/** One job: tool, status, progress or how it ended; Cancel while it is queued or running. */
function jobItem(job) {
  const li = el('li');
  li.dataset.id = job.id;
  const head = el('div', job.tool);
  head.append(badge(job.status, JOB_TONES[job.status] ?? 'warn'));
  li.append(head);
  const p = job.progress;
  if (job.status === 'running' && p !== undefined) {
    const pct = typeof p.fraction === 'number' ? `${Math.round(p.fraction * 100)}%` : '';
    li.append(el('div', [pct, p.message ?? ''].filter((t) => t !== '').join(' '), 'muted'));
  }
  if (job.worker !== undefined) li.append(el('div', `on ${job.worker.host}`, 'muted'));
  if (job.error !== undefined)
    li.append(el('div', `${job.error.code}: ${job.error.message}`, 'error'));
  if (job.result !== undefined) li.append(el('div', short(job.result), 'detail'));
  li.append(el('div', `job ${job.id}, submitted ${when(job.submitted_at)}`, 'muted'));
  if (job.status === 'queued' || job.status === 'running') {
    const cancel = el('button', 'Cancel', 'secondary');
    cancel.type = 'button';
    cancel.addEventListener('click', () => void cancelJob(job.id, cancel));
    const actions = el('div', undefined, 'actions');
    actions.append(cancel);
    li.append(actions);
  }
  return li;
}

async function refreshJobs() {
  try {
    const { jobs } = await api('GET', '/v1/jobs?limit=20');
    $('jobs-note').textContent = jobs.length === 0 ? 'No jobs yet.' : '';
    $('jobs').replaceChildren(...jobs.map(jobItem));
  } catch (err) {
    $('jobs-note').textContent = why(err);
  }
}

async function cancelJob(id, button) {
  button.disabled = true;
  try {
    await api('POST', `/v1/jobs/${encodeURIComponent(id)}/cancel`, {});
  } catch (err) {
    $('jobs-note').textContent = why(err);
  }
  await refreshJobs();
}

/** Scrolls the page so `node` starts just below the strip of waiting calls (which stays on top). */
function scrollBelowStrip(node) {
  const strip = $('held');
  const covered = strip.hidden ? 0 : strip.getBoundingClientRect().height;
  window.scrollTo({ top: window.scrollY + node.getBoundingClientRect().top - covered - 8 });
}

/** Scrolls to the card of a held call (or the panel, when it is gone). */
function showCard(id) {
  const card = document.querySelector(`#confirmations li[data-id="${CSS.escape(id)}"]`);
  scrollBelowStrip(card ?? $('confirmations-panel'));
}

/**
 * The strip at the top of the screen while a call waits (ADR 0077): how many wait, the first
 * one (tool, what would run, who asked), and its buttons, so a phone sees it without
 * scrolling. A model's call made after it read untrusted or private data is approved only on
 * its card, which shows what the model had read: here it offers Review instead of Approve.
 */
function showHeld(pending) {
  const strip = $('held');
  const result = $('held-result');
  // the last decision's outcome stays until dismissed
  const dismiss = el('button', 'Dismiss', 'secondary');
  dismiss.type = 'button';
  dismiss.addEventListener('click', () => {
    result.hidden = true;
    showHeld(pending);
  });
  if (pending.length === 0) {
    $('held-first').replaceChildren();
    $('held-actions').replaceChildren(...(result.hidden ? [] : [dismiss]));
    strip.dataset.count = '0';
    strip.hidden = result.hidden;
    setText($('held-count'), 'Nothing is waiting.');
    return;
  }
  const c = pending[0];
  strip.hidden = false;
  strip.dataset.count = String(pending.length);
  strip.dataset.id = c.id;
  setText($('held-count'), `Waiting for you: ${pending.length}`);
  const first = el('div', undefined, 'held-call');
  // the summary names the tool first ("calculator with {...}"): the name in bold, once
  const rest = c.summary.startsWith(c.tool) ? c.summary.slice(c.tool.length) : ` ${c.summary}`;
  first.append(el('span', c.tool, 'name'), el('span', short(rest, 160), 'summary'));
  first.append(el('div', `asked by ${askedByText(c)}`, 'asked-by'));
  const review = c.asked_by?.kind === 'model' && (c.read ?? []).length > 0;
  if (review) {
    first.append(el('div', 'the model had read untrusted or private data first', 'warn'));
  }
  $('held-first').replaceChildren(first);
  const buttons = review
    ? [el('button', 'Review'), el('button', 'Reject', 'secondary')]
    : [el('button', 'Approve'), el('button', 'Reject', 'secondary')];
  const details = el('button', pending.length > 1 ? 'All' : 'Details', 'secondary');
  for (const b of [...buttons, details]) b.type = 'button';
  if (review) buttons[0].addEventListener('click', () => showCard(c.id));
  else buttons[0].addEventListener('click', () => void decide(c, { approve: true }, buttons));
  buttons[1].addEventListener('click', () => void decide(c, { approve: false }, buttons));
  details.addEventListener('click', () => showCard(c.id));
  $('held-actions').replaceChildren(...buttons, details, ...(result.hidden ? [] : [dismiss]));
}

function describeReport(r) {
  const lines = [`${r.tool}: ${r.outcome}`];
  if (r.result !== undefined) lines.push(`result: ${short(r.result, 2000)}`);
  if (r.reason) lines.push(r.reason);
  if (r.error) lines.push(`${r.error.code}: ${r.error.message}`);
  if (r.stopped === true) {
    const others = (r.also_rejected ?? []).map((o) => `${o.id} (${o.tool})`);
    const also = others.length > 0 ? `; also rejected: ${others.join(', ')}` : '';
    lines.push(`stopped the turn: the model is not asked again${also}`);
  } else if (r.stopped === false) {
    lines.push('no model turn waited for this call: it was a plain rejection');
  }
  if (r.chat?.reply) lines.push(r.chat.reply);
  return lines.join('\n');
}

/**
 * `decision`: `{approve}`, or `{approve: false, stop_turn: true}` to stop the turn too. The
 * report shows in the panel, and its first lines in the strip at the top (what a phone sees).
 */
async function decide(c, decision, buttons) {
  buttons.forEach((b) => (b.disabled = true));
  const out = $('confirm-result');
  const brief = $('held-result');
  out.hidden = false;
  brief.hidden = false;
  let text;
  try {
    const report = await api('POST', `/v1/confirmations/${encodeURIComponent(c.id)}`, decision);
    text = describeReport(report);
    out.dataset.outcome = report.outcome;
  } catch (err) {
    text = why(err);
    out.dataset.outcome = 'error';
  }
  setText(out, text);
  setText(brief, short(text.split('\n').slice(0, 2).join('\n'), 300));
  brief.dataset.outcome = out.dataset.outcome;
  await refreshConfirmations();
}

// ---- live tail ---------------------------------------------------------------------------

let lastSeq = 0;

function eventDetail(row) {
  const p = row.payload ?? {};
  if (row.event_type === 'tool.denied') return p.decision?.reason ?? p.code;
  if (row.event_type === 'tool.input_rejected')
    return (p.problems ?? []).map((x) => `${x.path}: ${x.message}`).join('; ') || p.code;
  if (row.event_type === 'tool.result') return `result: ${short(p.result)}`;
  if (row.event_type === 'tool.failed') return p.error ? `${p.error.code}: ${p.error.message}` : '';
  if (row.event_type === 'tool.confirmation_requested') return p.summary;
  if (row.event_type === 'tool.called' || row.event_type === 'service.called')
    return `input: ${short(p.input)}`;
  if (row.event_type === 'tool.rejected') return p.reason;
  if (row.event_type === 'chat.completed') return short(p.reply ?? '');
  return '';
}

function showEvent(row) {
  if (row.seq <= lastSeq) return;
  lastSeq = row.seq;
  const li = el('li');
  li.dataset.seq = row.seq;
  li.dataset.type = row.event_type;
  li.append(el('span', when(row.ts), 'when'));
  const what = el('span', `${row.event_type}${row.tool ? ` ${row.tool}` : ''}`);
  if (row.outcome) what.append(badge(row.outcome, toneOf(row.outcome)));
  what.append(el('span', ` ${row.actor ?? ''}`, 'muted'));
  li.append(what);
  const detail = eventDetail(row);
  if (detail) li.append(el('span', detail, 'detail'));
  const list = $('events');
  list.prepend(li);
  while (list.childElementCount > MAX_EVENT_ROWS) list.lastElementChild.remove();
  if (/^tool\.(confirmation_requested|confirmed|rejected)$/.test(row.event_type)) {
    void refreshConfirmations();
  }
  // a job's rows (submitted, started, progress, finished, failed) move the jobs panel
  if (row.event_type.startsWith('job.')) void refreshJobs();
}

/** Parses one server-sent event frame (`id:`, `event:`, `data:` lines). */
function parseFrame(frame) {
  let event = 'message';
  const data = [];
  for (const line of frame.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return { event, data: data.join('\n') };
}

/** Reads one `GET /v1/events` response until it ends. */
async function readStream(res) {
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, '\n');
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const { event, data } = parseFrame(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (event === 'audit' && data !== '') showEvent(JSON.parse(data));
    }
    if (buffer.length > MAX_FRAME_CHARS) throw new Error('an event larger than 1 MiB');
  }
}

/**
 * The live tail: the last rows of the log, then `GET /v1/events` read with fetch() and a
 * stream reader (EventSource cannot send the Authorization header), resumed after the last
 * row shown whenever it drops.
 */
async function startTail(signal) {
  const note = $('events-note');
  try {
    const rows = await api('GET', `/v1/audit?limit=${BACKLOG_ROWS}`);
    rows.reverse().forEach(showEvent);
  } catch (err) {
    note.textContent = why(err);
    if (err instanceof ApiError && err.status === 403) return;
  }
  let delay = 1000;
  while (!signal.aborted) {
    try {
      const res = await fetch(`/v1/events?after_seq=${lastSeq}`, {
        headers: { authorization: `Bearer ${token()}`, accept: 'text/event-stream' },
        cache: 'no-store',
        credentials: 'omit',
        signal,
      });
      if (res.status === 401) return logout('The brain no longer accepts this token.');
      if (!res.ok) {
        const body = await res.json().catch(() => ({}));
        note.textContent = body.error?.message ?? `event stream: HTTP ${res.status}`;
        if (res.status === 403) return;
      } else {
        note.textContent = 'live';
        note.dataset.state = 'live';
        delay = 1000;
        const opened = Date.now();
        await readStream(res);
        // the brain ends a quiet stream once its stall time passes (docs/api.md, "Streams and abandoned requests"):
        // resume at once; only a stream that ends as soon as it opens waits before the next
        if (Date.now() - opened >= 1000) continue;
      }
    } catch (err) {
      if (signal.aborted) return;
      note.textContent = `event stream dropped (${why(err)}); reconnecting`;
    }
    note.dataset.state = 'reconnecting';
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 30_000);
  }
}

// ---- policy ------------------------------------------------------------------------------

function fact(list, term, value, tone) {
  const dd = el('dd', value);
  if (tone) dd.append(badge(tone === 'good' ? 'ok' : '!', tone));
  list.append(el('dt', term), dd);
}

async function refreshPolicy() {
  const list = $('policy');
  let p;
  try {
    p = await api('GET', '/v1/policy', undefined, { accept: [404] });
  } catch (err) {
    list.replaceChildren(el('dt', 'status'), el('dd', why(err), 'error'));
    return;
  }
  list.replaceChildren();
  if (p?.error?.code === 'not_found' || typeof p?.status !== 'string') {
    list.append(el('dt', 'status'), el('dd', 'not available (this brain has no GET /v1/policy)'));
    list.dataset.status = 'not_available';
    return;
  }
  list.dataset.status = p.status;
  fact(list, 'status', p.status, toneOf(p.status));
  fact(list, 'file', p.enforced?.path);
  fact(list, 'rules', p.enforced?.rules);
  fact(list, 'sha256', String(p.enforced?.sha256 ?? '').slice(0, 16));
  fact(list, 'loaded', p.enforced?.loaded_at ? when(p.enforced.loaded_at) : '');
  fact(list, 'disk matches', String(p.disk?.matches_enforced), toneOf(p.disk?.matches_enforced));
  const e = p.last_reload_error;
  if (e) {
    const where = [e.file, e.line, e.col].filter((v) => v !== null && v !== undefined).join(':');
    fact(list, 'last reload error', `${e.code} at ${where}: ${e.message} (${when(e.at)})`, 'bad');
  }
  // what loads but deserves a look: a tool no worker serves (a typo?), a rule that never applies
  const warnings = Array.isArray(p.warnings) ? p.warnings : [];
  if (warnings.length > 0) {
    const items = el('ul', undefined, 'policy-warnings');
    for (const w of warnings) {
      const what = w.path ? `${w.path} ${w.message}` : w.message;
      items.append(el('li', `${what} (line ${w.line}:${w.column})`));
    }
    const dd = el('dd');
    dd.append(
      badge(`${warnings.length} warning${warnings.length === 1 ? '' : 's'}`, 'warn'),
      items,
    );
    list.append(el('dt', 'warnings'), dd);
  }
}

async function explain(form) {
  const out = $('explain-result');
  out.hidden = false;
  let input;
  try {
    input = JSON.parse(form.input.value || '{}');
  } catch (err) {
    out.textContent = `Input is not JSON: ${err.message}`;
    return;
  }
  try {
    // as another principal (ADR 0096): the brain gives it the groups the tokens file does
    const principal = form.principal.value.trim();
    const { decision } = await api('POST', '/v1/policy/explain', {
      tool: form.tool.value.trim(),
      input,
      ...(principal ? { principal } : {}),
    });
    out.dataset.outcome = decision.outcome;
    const as = principal ? ` for ${principal}` : '';
    out.textContent = `${decision.outcome}${as} (rule ${decision.rule?.id})\n${decision.reason}`;
  } catch (err) {
    out.textContent = why(err);
  }
}

// ---- chat --------------------------------------------------------------------------------

/** The phrase of a reply that points at the Tools panel (offline replies say it). */
const TOOLS_PHRASE = 'the Tools panel';

/** Scrolls to the Tools panel and moves the focus there. */
function openTools(event) {
  event.preventDefault();
  const panel = $('tools-panel');
  scrollBelowStrip(panel);
  panel.focus({ preventScroll: true });
}

/**
 * One reply of the brain: its text (identifiers wrap at their separators), where each
 * "the Tools panel" is a link to that panel rather than setup text in the chat.
 */
function replyItem(reply) {
  const li = el('li', undefined, 'caesar');
  const pieces = `caesar: ${reply}`.split(TOOLS_PHRASE);
  pieces.forEach((piece, i) => {
    if (i > 0) {
      const link = el('a', TOOLS_PHRASE, 'tools-link');
      link.href = '#tools-panel';
      link.addEventListener('click', openTools);
      li.append(link);
    }
    li.append(...textParts(piece));
  });
  return li;
}

async function sendChat(form) {
  const message = form.message.value.trim();
  if (message === '') return;
  const log = $('chat-log');
  log.append(el('li', `you: ${message}`, 'you'));
  form.message.value = '';
  const sessionId = sessionStorage.getItem(SESSION_KEY);
  const body = sessionId === null ? { message } : { message, session_id: sessionId };
  try {
    const r = await api('POST', '/v1/chat', body);
    sessionStorage.setItem(SESSION_KEY, r.session_id);
    const li = replyItem(r.reply);
    for (const call of r.tool_calls) {
      li.append(el('div', `${call.tool}: ${call.outcome}`, `muted ${toneOf(call.outcome)}`));
    }
    log.append(li);
    if (r.tool_calls.some((c) => c.outcome === 'confirmation_required')) {
      await refreshConfirmations();
    }
  } catch (err) {
    if (err instanceof ApiError && err.code === 'session_not_found') {
      sessionStorage.removeItem(SESSION_KEY);
    }
    log.append(el('li', why(err), 'error'));
  }
  // a wide screen scrolls the log; a phone's log grows with the page, which scrolls instead
  log.scrollTop = log.scrollHeight;
  log.lastElementChild?.scrollIntoView({ block: 'nearest' });
}

// ---- wiring ------------------------------------------------------------------------------

function init() {
  $('login-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const candidate = $('token').value.trim();
    $('token').value = '';
    login(candidate).catch((err) => {
      const refused = err instanceof ApiError && err.status === 401;
      showLogin(refused ? 'The brain refused this token.' : `Could not log in: ${why(err)}`);
    });
  });
  $('logout').addEventListener('click', () => logout());
  $('chat-form').addEventListener('submit', (e) => {
    e.preventDefault();
    void sendChat(e.currentTarget);
  });
  $('explain-form').addEventListener('submit', (e) => {
    e.preventDefault();
    void explain(e.currentTarget);
  });
  const saved = token();
  if (saved === null) {
    showLogin();
    return;
  }
  login(saved).catch((err) => {
    if (err instanceof ApiError && err.status === 401) {
      logout('The brain refused the saved token; log in again.');
    } else {
      showLogin(`Could not reach the brain: ${why(err)}`);
    }
  });
}

init();
