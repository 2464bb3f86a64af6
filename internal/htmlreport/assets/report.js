'use strict';
// Renders the evaluation report from the JSON blocks of this page. All data
// becomes DOM text nodes: nothing from the data is ever parsed as HTML.
// Strings from the data (tool-call ids, statuses, metric names) are never
// used as keys of plain objects, where "__proto__" or "constructor" would
// find Object.prototype: lookups go through Map, Set or own().
(async function () {
  const data = await readData();
  if (!data) return;
  const cases = data.cases;
  const PAGE = 200; // rows the table holds at first, and more at a time
  const BATCH = 20; // rows rendered at a time, as the table scrolls to them
  const LONG = 1500; // characters shown of a long text before "show all"

  const STATUS = new Map([
    ['error', { label: 'Error', order: 0 }],
    ['token_limit', { label: 'Token limit', order: 1 }],
    ['cut', { label: 'Cut off', order: 1 }],
    ['fail', { label: 'Fail', order: 2 }],
    ['undecided', { label: 'Undecided', order: 3 }],
    ['not_run', { label: 'Not run', order: 4 }],
    ['skip', { label: 'Skipped', order: 4 }],
    ['pass', { label: 'Pass', order: 5 }],
  ]);
  // count is "1 request", "2 requests": n and the word, singular for one.
  const count = (n, one, many) => fmtInt(n) + ' ' + (n === 1 ? one : many || one + 's');
  const statusInfo = (s) => STATUS.get(s) || { label: String(s || 'unknown'), order: 6 };
  const statusClass = (s) => (STATUS.has(s) ? s : 'unknown');
  // own is obj[key] when obj has it as its own property, else undefined.
  const own = (obj, key) => (obj && Object.hasOwn(obj, key) ? obj[key] : undefined);
  // score is a row's score of the metric data.metric_keys[i], or undefined:
  // a row holds its scores in that order, null where it has none.
  const score = (c, i) => (Array.isArray(c.metrics) && typeof c.metrics[i] === 'number' ? c.metrics[i] : undefined);

  // ---- the data ----
  // readData reads the overview: plain JSON, or in a large report that JSON
  // gzip-compressed in base64, which the browser inflates. When it cannot,
  // the page says why instead of the report.
  async function readData() {
    const block = document.getElementById('data');
    if (block.type !== 'application/gzip') return JSON.parse(block.textContent);
    if (typeof DecompressionStream !== 'function') {
      fail('This report is compressed, and this browser cannot decompress it: it has no DecompressionStream. ' +
        'Open the report in a current browser (Chrome or Edge 80, Firefox 113, Safari 16.4 or newer).');
      return null;
    }
    try {
      return JSON.parse(await inflate(block.textContent));
    } catch (err) {
      fail('The report\'s data could not be read: ' + err);
      return null;
    }
  }
  // fail shows a message in place of the report.
  function fail(message) {
    const app = document.getElementById('app');
    const p = document.createElement('p');
    p.className = 'loading failed';
    p.textContent = message;
    app.replaceChildren(p);
    app.removeAttribute('aria-busy');
  }
  // inflate gives the text of gzip-compressed base64.
  function inflate(base64) {
    let bytes;
    if (typeof Uint8Array.fromBase64 === 'function') bytes = Uint8Array.fromBase64(base64);
    else {
      const bin = atob(base64);
      bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    }
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text();
  }

  // ---- DOM helpers: text only ----
  function el(tag, cls, ...kids) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    add(e, kids);
    return e;
  }
  function add(parent, kid) {
    if (kid === null || kid === undefined || kid === false) return;
    if (Array.isArray(kid)) { for (const k of kid) add(parent, k); return; }
    if (kid instanceof Node) { parent.appendChild(kid); return; }
    // An option shows plain text only: its hidden characters are escaped
    // in the text itself.
    parent.appendChild(parent.tagName === 'OPTION' ? document.createTextNode(escapeHidden(kid)) : visible(kid));
  }

  // Characters that hide or rearrange text instead of showing: control
  // characters (escape sequences, NUL, backspace, ...) but tab and line
  // breaks, and the bidirectional formatting characters, which reorder
  // what follows them (U+202E shows "gnp.exe" as "exe.png"). Text from the
  // data shows each of them as a marked escape, \x1b or \u202e.
  const HIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
  const HIDDEN_ALL = new RegExp(HIDDEN.source, 'g');
  function escapeChar(ch) {
    const code = ch.charCodeAt(0);
    return code < 0x100 ? '\\x' + code.toString(16).padStart(2, '0') : '\\u' + code.toString(16).padStart(4, '0');
  }
  const escapeHidden = (text) => String(text).replace(HIDDEN_ALL, escapeChar);
  // visible returns text as DOM nodes, its hidden characters as marked
  // escapes.
  function visible(text) {
    text = String(text);
    if (!HIDDEN.test(text)) return document.createTextNode(text);
    const frag = document.createDocumentFragment();
    let last = 0;
    for (const m of text.matchAll(HIDDEN_ALL)) {
      if (m.index > last) frag.appendChild(document.createTextNode(text.slice(last, m.index)));
      const mark = document.createElement('span');
      mark.className = 'ctl';
      mark.textContent = escapeChar(m[0]);
      mark.title = 'U+' + m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0') +
        (/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(m[0]) ? ': a bidirectional formatting character' : ': a control character') +
        ', shown escaped';
      frag.appendChild(mark);
      last = m.index + m[0].length;
    }
    if (last < text.length) frag.appendChild(document.createTextNode(text.slice(last)));
    return frag;
  }
  function button(cls, label, onClick) {
    const b = el('button', cls, label);
    b.type = 'button';
    b.addEventListener('click', onClick);
    return b;
  }

  // ---- formatting ----
  // One formatter for every number: toLocaleString makes one per call,
  // which cost a large report's first view tens of milliseconds.
  const intFormat = new Intl.NumberFormat('en-US');
  const fmtInt = (n) => intFormat.format(Number(n || 0));
  const fmtRate = (r) => Number(r || 0).toFixed(1) + '%';
  const fmtSec = (s) => Number(s || 0).toFixed(1);
  function fmtDuration(sec) {
    sec = Number(sec || 0);
    if (sec < 60) return sec.toFixed(1) + ' s';
    const h = Math.floor(sec / 3600), m = Math.floor((sec % 3600) / 60), s = Math.round(sec % 60);
    return (h ? h + ' h ' : '') + m + ' min ' + s + ' s';
  }
  function fmtDate(iso) {
    const d = new Date(iso);
    if (isNaN(d)) return String(iso);
    const p = (n) => String(n).padStart(2, '0');
    return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + ' ' + p(d.getHours()) + ':' + p(d.getMinutes());
  }
  function fmtScore(v) {
    if (typeof v !== 'number') return null;
    return Math.abs(v) <= 1 ? v.toFixed(2) : String(Math.round(v * 100) / 100);
  }
  function scoreClass(v) { return v >= 0.8 ? 'hi' : v >= 0.5 ? 'md' : 'lo'; }
  function fmtUSD(v) { return '$' + Number(v || 0).toFixed(4); }
  // A cost that may be unknown: "unpriced" when no request had a price,
  // never $0.
  function fmtCost(usd, unpriced) {
    if (unpriced && !usd) return 'unpriced';
    return fmtUSD(usd) + (unpriced ? ' + ' + fmtInt(unpriced) + ' unpriced requests' : '');
  }
  // pass@k and pass^k at the largest k of a list of estimates.
  function fmtPassK(at, hat) {
    if (!at || at.length < 2) return '';
    const k = at.length;
    return 'pass@' + k + ' ' + Number(at[k - 1]).toFixed(2) + ' · pass^' + k + ' ' + Number(hat[k - 1]).toFixed(2);
  }
  function pretty(text) {
    if (typeof text !== 'string' || text.length > 400000) return text;
    const t = text.trim();
    if (!(t.startsWith('{') || t.startsWith('['))) return text;
    try { return JSON.stringify(JSON.parse(t), null, 2); } catch (e) { return text; }
  }
  // The label of a per-case metric, as the report's data names it.
  const metricLabels = new Map((data.metric_keys || []).map((k, i) => [k, (data.metric_labels || [])[i] || k]));
  const metricLabel = (k) => metricLabels.get(k) || k;
  // A summary value as its kind reads: a score, a rate or a count.
  function fmtMetric(m) {
    if (m.not_applicable) return '—';
    const v = Number(m.value);
    if (m.kind === 'rate') return fmtRate(100 * v);
    if (m.kind === 'count') return Number.isInteger(v) ? fmtInt(v) : v.toFixed(2);
    return fmtScore(v);
  }
  // A tool name that may wrap after its underscores, not inside a word.
  function toolName(name) {
    const parts = String(name).split('_');
    return parts.map((p, i) => (i < parts.length - 1 ? [p + '_', el('wbr')] : p));
  }
  // The mark of a call that failed, or that never reached a server.
  function callMark(t) {
    if (t.not_run) return el('span', 'notrun-mark', 'not run');
    return t.is_error ? el('span', 'err-mark', '✕ failed') : null;
  }
  // The outcomes of a case's runs (go test -count=N), one mark each, and
  // how many of those that ran passed; the runs not run are no runs of the
  // case, counted beside.
  function marks(c) {
    if (!c.marks || c.marks.length < 2) return null;
    const box = el('span', 'marks');
    box.title = c.passes + ' of ' + count(c.ran, 'run') + ' passed' + (c.flaky ? ' (flaky)' : '') + (c.not_run ? ', ' + fmtInt(c.not_run) + ' not run' : '');
    for (const m of c.marks) box.appendChild(el('i', 'mark m-' + statusClass(m)));
    if (c.ran) box.appendChild(el('span', 'mark-count', c.passes + '/' + c.ran));
    if (c.not_run) box.appendChild(el('span', 'mark-notrun', fmtInt(c.not_run) + ' not run'));
    return box;
  }
  const flakyTag = (c) => (c.flaky ? el('span', 'tag flaky', 'flaky') : null);
  // One judge's verdict: yes, no, or an unusable reply or failed request.
  function judgeVerdict(j) {
    if (j.failed || j.error) return el('span', 'jv failed', 'error');
    if (j.verdict === 'yes' || j.verdict === 'no') return el('span', 'jv ' + j.verdict, j.verdict);
    return el('span', 'jv unusable', 'undecided');
  }
  // Each judge's verdict of a case judged by several, marked when they split.
  function judgeMarks(c) {
    const box = el('span', 'judges');
    for (const j of c.judges) {
      const m = judgeVerdict(j);
      m.title = j.model + ': ' + m.textContent;
      box.appendChild(m);
    }
    if (c.split) box.appendChild(el('span', 'tag split', 'judges split'));
    return box;
  }

  // statusCounts are the totals t by status, in the order of the legend.
  function statusCounts(t) {
    return [['pass', t.passed], ['fail', t.failed], ['error', t.errors], ['token_limit', t.token_limit], ['cut', t.cut], ['undecided', t.undecided], ['not_run', t.not_run], ['skip', t.skipped]];
  }

  function badge(status) {
    return el('span', 'badge b-' + statusClass(status), statusInfo(status).label);
  }
  function bar(t, cls) {
    const b = el('div', 'bar' + (cls ? ' ' + cls : ''));
    const total = t.total || 0;
    for (const [key, n] of statusCounts(t)) {
      if (!n || !total) continue;
      const s = el('span', 'seg-' + key);
      s.style.width = (100 * n / total) + '%';
      s.title = statusInfo(key).label + ': ' + n;
      b.appendChild(s);
    }
    b.setAttribute('role', 'img');
    b.setAttribute('aria-label', t.passed + ' of ' + t.ran + ' passed');
    return b;
  }
  // A text that may be long: the first LONG characters and a button for all.
  function longText(cls, text, isCode) {
    const box = el('div');
    const body = el(isCode ? 'pre' : 'div', cls);
    box.appendChild(body);
    if (text.length <= LONG) { body.replaceChildren(visible(text)); return box; }
    body.replaceChildren(visible(text.slice(0, LONG) + '…'));
    const more = button('expand', 'Show all ' + fmtInt(text.length) + ' characters', () => {
      body.replaceChildren(visible(text));
      more.remove();
    });
    box.appendChild(more);
    return box;
  }

  // ---- state ----
  // Failures first: the table starts sorted by status (errors, token
  // limits, failures, skipped, passes), each in the order of the case files.
  const state = { status: 'all', category: null, query: '', sortKey: 'status', sortDir: 1, shown: PAGE, rendered: 0, filtered: cases.slice(), open: -1 };

  // clamped is as much of a text as a cell that shows four lines of it can
  // show: its first five lines (the fifth tells the cell there is more), at
  // most CLAMP characters. The browser lays out all of a cell's text, shown
  // or not: a long answer would cost its row as much as if shown whole.
  const CLAMP = 1000;
  function clamped(text) {
    text = String(text || '');
    let end = Math.min(text.length, CLAMP);
    for (let i = 0, nl = -1; i < 5; i++) {
      nl = text.indexOf('\n', nl + 1);
      if (nl < 0 || nl >= end) break;
      if (i === 4) end = nl;
    }
    return end < text.length ? text.slice(0, end) + '…' : text;
  }

  // ---- columns: one list drives both header and body cells ----
  const textCol = (key, label) => ({
    key, label, w: 'w-' + key,
    sort: (c) => (c[key] || '').toLowerCase(),
    cell: (c) => (c[key] ? el('div', 'clamp', clamped(c[key])) : el('span', 'empty', '—')),
  });
  const columns = [
    {
      key: 'status', label: 'Status', w: 'w-status',
      sort: (c) => statusInfo(c.status).order,
      cell: (c) => [badge(c.status), el('br'), marks(c), flakyTag(c), c.cached ? el('span', 'tag cached', 'cached') : null, c.no_record && c.status !== 'skip' && c.status !== 'not_run' ? el('span', 'tag norecord', 'no record') : null],
    },
    {
      key: 'name', label: 'Case', w: 'w-name',
      sort: (c) => c.name.toLowerCase(),
      cell: (c) => [el('div', 'case-name', c.name), c.model ? el('div', 'case-model', c.model) : null, c.category ? el('div', 'case-cat', c.category) : null],
    },
    {
      key: 'reason', label: 'Reason', w: 'w-reason',
      sort: (c) => (c.reason || '').toLowerCase(),
      cell: (c) => {
        const d = el('div', 'clamp');
        if (c.verdict) d.appendChild(el('span', 'verdict ' + (c.verdict === 'yes' ? 'yes' : 'no'), c.verdict));
        if (c.judges && c.judges.length) d.appendChild(judgeMarks(c));
        add(d, clamped(c.reason) || (c.verdict ? '' : '—'));
        return d;
      },
    },
    textCol('question', 'Question'),
    textCol('expected', 'Expected'),
    textCol('response', 'Response'),
    {
      key: 'tools', label: 'Tool calls', w: 'w-tools',
      sort: (c) => c.tools.length,
      cell: (c) => {
        if (!c.tools.length) return el('span', 'empty', 'None');
        const ul = el('ul', 'tools');
        for (const t of c.tools.slice(0, 6)) {
          ul.appendChild(el('li', t.not_run ? 'notrun' : t.is_error ? 'err' : '',
            el('span', 'tn', toolName(t.name)), callMark(t),
            t.args && t.args !== '{}' ? el('span', 'ta', t.args) : null));
        }
        if (c.tools.length > 6) ul.appendChild(el('li', 'more-tools', '+' + (c.tools.length - 6) + ' more'));
        return ul;
      },
    },
    {
      key: 'tokens', label: 'Tokens', w: 'w-tokens', num: true,
      sort: (c) => c.tokens,
      cell: (c) => (c.no_record ? el('span', 'empty', '—') : (c.tokens_estimated ? '≈' : '') + fmtInt(c.tokens)),
    },
    { key: 'seconds', label: 'Time', title: 'seconds', w: 'w-seconds', num: true, sort: (c) => c.seconds, cell: (c) => fmtSec(c.seconds) + ' s' },
  ];
  if (data.repeats > 1) {
    columns.splice(2, 0, {
      key: 'rate', label: 'Pass rate', title: 'the share of the runs that passed, pass@k and pass^k', w: 'w-rate', num: true,
      sort: (c) => (c.marks ? c.rate : -1),
      cell: (c) => (c.marks ? [fmtRate(100 * c.rate), el('div', 'pass-k', fmtPassK(c.pass_at_k, c.pass_hat_k))] : el('span', 'empty', '—')),
    });
  }
  for (const [i, k] of (data.metric_keys || []).entries()) {
    columns.push({
      key: 'metric:' + k, label: metricLabel(k), title: k, w: 'w-metric', num: true, metric: true,
      sort: (c) => score(c, i) ?? -Infinity,
      cell: (c) => {
        const v = score(c, i);
        return v !== undefined ? el('span', 'score ' + scoreClass(v), fmtScore(v)) : el('span', 'empty', '—');
      },
    });
  }

  // ---- filtering and sorting ----
  function haystack(c) {
    if (c._hay === undefined) {
      const parts = [c.name, c.category, c.test, c.question, c.expected, c.response, c.reason, c.verdict];
      for (const t of c.tools) parts.push(t.name, t.args);
      c._hay = parts.join('\n').toLowerCase();
    }
    return c._hay;
  }
  function matches(c, words) {
    if (state.status === 'cached') { if (!c.cached) return false; }
    else if (state.status === 'split') { if (!c.split) return false; }
    else if (state.status === 'no_record') { if (!c.no_record) return false; }
    else if (state.status === 'flaky') { if (!c.flaky) return false; }
    else if (state.status !== 'all' && c.status !== state.status) return false;
    if (state.category !== null && c.category !== state.category) return false;
    if (words.length) {
      const h = haystack(c);
      for (const w of words) if (!h.includes(w)) return false;
    }
    return true;
  }
  function apply() {
    const words = state.query.toLowerCase().split(/\s+/).filter(Boolean);
    let list = cases.filter((c) => matches(c, words));
    const col = columns.find((x) => x.key === state.sortKey);
    if (col) {
      const dir = state.sortDir;
      const keyed = list.map((c) => [col.sort(c), c]);
      keyed.sort((a, b) => (a[0] < b[0] ? -dir : a[0] > b[0] ? dir : a[1].id - b[1].id));
      list = keyed.map((x) => x[1]);
    }
    state.filtered = list;
    state.shown = PAGE;
    renderRows();
    renderControls();
    markScroll();
  }

  // ---- page ----
  const app = document.getElementById('app');
  app.textContent = '';
  app.removeAttribute('aria-busy');
  const run = data.run;
  const totals = data.totals;
  // With several models or arms each has its own pass rate: no mix of
  // them is the run's headline.
  const variants = data.models || [];
  const several = variants.length > 1;
  const armsRun = variants.some((m) => m.arm);
  const variantWord = armsRun ? 'arms' : 'models';
  document.title = 'Evaluation report' + (run.model ? ' · ' + escapeHidden(run.model) : '') + (several ? '' : ' · ' + fmtRate(totals.rate));

  function header() {
    const meta = el('dl', 'meta');
    const item = (label, value, title) => {
      if (value === undefined || value === null || value === '') return;
      const d = el('div', '', el('dt', '', label), el('dd', '', value));
      if (title) d.title = escapeHidden(title);
      meta.appendChild(d);
    };
    item('Started', run.started ? fmtDate(run.started) : '');
    item('Duration', run.seconds ? fmtDuration(run.seconds) : '');
    const modelNames = (data.models || []).map((m) => m.model);
    if (modelNames.length > 1) item(armsRun ? 'Arms' : 'Models', modelNames.join(', '));
    else item('Model', run.reference ? 'reference agent (no model)' : run.model);
    item('Judge', run.judge_model ? run.judge_model + (run.judge_mode ? ' (' + run.judge_mode + ')' : '') : '');
    item('Provider', run.provider);
    item('Servers', (run.servers || []).join(', '));
    item('Cases', run.case_files);
    if (run.replay) item('Tool results', 'replayed from run ' + run.replay.source + ' (' + count(run.replay.recorded, 'call') + ' answered from its recordings, ' + fmtInt(run.replay.unmatched_calls) + ' unmatched, ' + fmtInt(run.replay.live) + ' live)');
    if (run.rejudged) item('Re-judged from', 'run ' + run.rejudged.source + ': ' + fmtInt(run.rejudged.regraded) + ' answers graded again, ' + fmtInt(run.rejudged.changed) + ' changed status, ' + fmtInt(run.rejudged.kept) + ' taken over' +
      (run.rejudged.gone && run.rejudged.gone.length ? '; no longer in the case files: ' + run.rejudged.gone.join(', ') : '') + '; the model was asked nothing');
    const unpriced = run.usage && run.usage.unpriced_requests;
    if (run.rejudged) {
      // The model was asked nothing: what the run spent is the judge's.
      const j = run.judge_cost || { cost_usd: 0, requests: 0, model: run.judge_model || 'none' };
      item('Cost', fmtUSD(0) + ' for the model, asked nothing (its answers came from run ' + run.rejudged.source + ')');
      item('Judge cost', fmtCost(j.cost_usd, j.unpriced_requests) + ' for ' + count(j.requests, 'request') + ' of ' + j.model + ': all this re-judged run spent');
    } else {
      if (run.cost_usd || run.saved_usd || unpriced) item('Cost', fmtCost(run.cost_usd, unpriced) + (run.saved_usd ? ' (' + fmtUSD(run.saved_usd) + ' saved by the cache)' : ''));
    }
    if (run.judge_cost && !run.reference && !run.rejudged) {
      const j = run.judge_cost;
      item('Judge cost', fmtCost(j.cost_usd, j.unpriced_requests) + ' for ' + count(j.requests, 'request') + ' of ' + j.model + (modelNames.length > 1 ? ', not in the ' + variantWord + '\' costs' : ''));
    }
    if (run.user_cost && !run.reference && !run.rejudged) {
      const u = run.user_cost;
      item('Simulated user cost', fmtCost(u.cost_usd, u.unpriced_requests) + ' for ' + count(u.requests, 'request') + ' of ' + u.model + (modelNames.length > 1 ? ', not in the ' + variantWord + '\' costs' : ''));
    }
    if (data.comparison) {
      const d = el('div', '', el('dt', '', 'Since the baseline'), el('dd', '', data.comparison.causes + ' (baseline ' + data.comparison.baseline + '): '));
      d.id = 'comparison';
      const a = el('a', 'comparison-link', 'the comparison');
      a.href = data.comparison.href;
      d.lastChild.appendChild(a);
      meta.appendChild(d);
    }
    item('Commit', run.git_commit ? run.git_commit.slice(0, 12) : '', run.git_commit);
    if (run.usage && run.usage.requests) item('Requests', fmtInt(run.usage.requests));
    if (run.usage && run.usage.retries) item('Retries', fmtInt(run.usage.retries));
    if (run.usage && run.usage.prompt_tokens && run.usage.cached_tokens) {
      item('Prompt cache', fmtRate(100 * run.usage.cached_tokens / run.usage.prompt_tokens) + ' of prompt tokens (' + fmtInt(run.usage.cached_tokens) + ')');
    }
    if (run.server_restarts) item('Server restarts', fmtInt(run.server_restarts));
    return el('header', 'top',
      el('div', 'title-row', el('h1', '', 'Evaluation report'), el('span', 'generated', 'Generated ' + fmtDate(data.generated))),
      meta);
  }

  function summary() {
    const rate = el('div', 'rate ' + (totals.rate >= 80 ? 'good' : totals.rate >= 50 ? 'mid' : 'bad'), fmtRate(totals.rate));
    rate.id = 'rate';
    const legend = el('div', 'legend');
    for (const [key, n] of statusCounts(totals)) {
      if (!n) continue;
      const i = el('i', 'seg-' + key);
      legend.appendChild(el('span', '', i, statusInfo(key).label + ' ' + fmtInt(n)));
    }
    const rateCard = several ? variantRates() : el('div', 'card rate-card',
      el('div', 'rate-label', 'Success rate'), rate,
      el('div', 'rate-sub', fmtInt(totals.passed) + ' of ' + fmtInt(totals.ran) + (data.repeats > 1 ? ' runs passed' : ' cases passed') +
        (totals.not_run ? ' (' + fmtInt(totals.not_run) + ' not run)' : '') + (totals.skipped ? ' (' + fmtInt(totals.skipped) + ' skipped)' : '')),
      run.overall && fmtPassK(run.overall.pass_at_k, run.overall.pass_hat_k) ? el('div', 'rate-sub pass-k', fmtPassK(run.overall.pass_at_k, run.overall.pass_hat_k) + ', the means over the cases') : null,
      bar(totals), legend, historyChart());

    const counts = el('div', 'counts');
    const card = (key, label, n, filter) => {
      const b = el(filter ? 'button' : 'div', 'count k-' + key + (filter ? '' : ' static'), el('span', 'n', fmtInt(n)), el('span', 'l', label));
      b.dataset.count = key;
      if (filter) {
        b.type = 'button';
        b.title = 'Show ' + label.toLowerCase() + ' cases';
        b.addEventListener('click', () => { setStatus(filter); document.getElementById('cases').scrollIntoView(); });
      }
      counts.appendChild(b);
    };
    card('total', data.repeats > 1 ? 'Runs (' + fmtInt(cases.length) + ' cases × ' + data.repeats + ')' : 'Cases', totals.total, 'all');
    card('pass', 'Passed', totals.passed, 'pass');
    card('fail', 'Failed', totals.failed, 'fail');
    card('error', 'Errors', totals.errors, 'error');
    card('token_limit', 'Token limit', totals.token_limit, 'token_limit');
    if (totals.cut) card('cut', 'Cut off', totals.cut, 'cut');
    if (totals.undecided) card('undecided', 'Undecided (judge)', totals.undecided, 'undecided');
    if (totals.not_run) card('not_run', 'Not run', totals.not_run, 'not_run');
    if (totals.skipped) card('skip', 'Skipped', totals.skipped, 'skip');
    if (filterCount.flaky) card('flaky', 'Flaky cases', filterCount.flaky, 'flaky');
    card('cached', 'Cached', totals.cached, 'cached');
    if (filterCount.split) card('split', 'Judges split', filterCount.split, 'split');
    if (totals.no_record) card('no_record', 'No record', totals.no_record, 'no_record');
    card('tokens', 'Tokens (this run)', totals.tokens, '');
    counts.lastChild.title = 'Tokens of the cases run now; cached cases are not counted';
    return el('section', 'summary', rateCard, counts);
  }

  // variantRates is the headline of a run of several models or arms: each
  // one's own success rate, in the run's order.
  function variantRates() {
    const list = el('ul', 'variant-rates');
    list.id = 'variant-rates';
    for (const m of variants) {
      const pct = m.runs ? 100 * m.pass_rate : 0;
      const li = el('li', '', el('span', 'mono', m.model + ': '),
        el('strong', 'rate-small ' + (pct >= 80 ? 'good' : pct >= 50 ? 'mid' : 'bad'), m.runs ? fmtRate(pct) : 'no run'),
        m.runs ? ' (' + fmtInt(m.passes) + ' of ' + fmtInt(m.runs) + (data.repeats > 1 ? ' runs)' : ' cases)') : '');
      li.dataset.model = m.model;
      list.appendChild(li);
    }
    return el('div', 'card rate-card', el('div', 'rate-label', 'Success rate of each of the ' + fmtInt(variants.length) + ' ' + variantWord), list, bar(totals));
  }

  // historyChart draws the pass rate of the kept runs of this case set,
  // oldest first, as an inline SVG line: no network, no markup from data.
  function historyChart() {
    const h = data.history || [];
    if (h.length < 2) return null;
    const W = 240, H = 48, pad = 4;
    const svg = document.createElementNS(NS, 'svg');
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    svg.setAttribute('width', String(W));
    svg.setAttribute('height', String(H));
    svg.setAttribute('role', 'img');
    svg.id = 'history';
    const x = (i) => pad + (W - 2 * pad) * i / (h.length - 1);
    const y = (r) => H - pad - (H - 2 * pad) * Math.max(0, Math.min(1, Number(r) || 0));
    const line = document.createElementNS(NS, 'polyline');
    line.setAttribute('points', h.map((p, i) => x(i).toFixed(1) + ',' + y(p.pass_rate).toFixed(1)).join(' '));
    line.setAttribute('class', 'history-line');
    svg.appendChild(line);
    h.forEach((p, i) => {
      const dot = document.createElementNS(NS, 'circle');
      dot.setAttribute('cx', x(i).toFixed(1));
      dot.setAttribute('cy', y(p.pass_rate).toFixed(1));
      dot.setAttribute('r', i === h.length - 1 ? '3' : '2');
      const t = document.createElementNS(NS, 'title');
      t.textContent = escapeHidden(p.run_id) + ': ' + fmtRate(100 * p.pass_rate);
      dot.appendChild(t);
      svg.appendChild(dot);
    });
    svg.setAttribute('aria-label', 'pass rate of the last ' + count(h.length, 'run') + ' of these cases');
    return el('div', 'history', el('div', 'rate-label', 'Pass rate, last ' + count(h.length, 'run')), svg);
  }

  // ---- models: a leaderboard, two charts, the pairwise tests and the
  // matrix of cases by models (only when the run compared models) ----
  const NS = 'http://www.w3.org/2000/svg';
  function svgEl(tag, attrs, text) {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = escapeHidden(text);
    return e;
  }
  function modelsView() {
    const models = data.models || [];
    if (models.length < 2) return null;
    const ran = (m) => m.runs > 0;
    const priced = (m) => !m.unpriced_requests;
    const board = models.slice().sort((a, b) => ran(b) - ran(a) || b.pass_rate - a.pass_rate || priced(b) - priced(a) || a.cost_per_pass - b.cost_per_pass);
    const table = el('table', 'mini');
    table.id = 'leaderboard';
    const k = data.repeats;
    const arms = models.some((m) => m.arm);
    const heads = [['#', 'num'], [arms ? 'Arm' : 'Model', ''], ['Pass rate', 'num'], ['95% interval', 'num'], ['Passed', 'num']];
    if (k > 1) heads.push(['pass@' + k, 'num'], ['pass^' + k, 'num']);
    heads.push(['Cost', 'num'], ['Cost per pass', 'num'], ['Mean tokens', 'num'], ['Prompt cache', 'num'], ['Tools (tokens per request)', 'num'], ['Latency p50 / p95', 'num'], ['Tool calls per run', 'num']);
    const hr = el('tr', '');
    for (const [h, cls] of heads) hr.appendChild(el('th', cls, h));
    table.appendChild(el('thead', '', hr));
    const body = el('tbody', '');
    board.forEach((m, i) => {
      const dash = () => el('span', 'empty', '—');
      const cells = [el('td', 'num', String(i + 1)), el('td', 'mono', m.model)];
      if (!ran(m)) {
        cells.push(el('td', 'num', dash()), el('td', 'num', dash()), el('td', 'num', 'no run' + (m.not_run ? ' (' + fmtInt(m.not_run) + ' not run)' : '')));
        if (k > 1) cells.push(el('td', 'num', dash()), el('td', 'num', dash()));
        cells.push(el('td', 'num', dash()), el('td', 'num', dash()), el('td', 'num', dash()), el('td', 'num', dash()), el('td', 'num', dash()), el('td', 'num', dash()), el('td', 'num', dash()));
      } else {
        const at = m.pass_at_k || [], hat = m.pass_hat_k || [];
        cells.push(el('td', 'num', fmtRate(100 * m.pass_rate)),
          el('td', 'num', fmtRate(100 * m.pass_rate_low) + ' – ' + fmtRate(100 * m.pass_rate_high)),
          el('td', 'num', fmtInt(m.passes) + ' / ' + fmtInt(m.runs) + (m.not_run ? ' (' + fmtInt(m.not_run) + ' not run)' : '')));
        if (k > 1) cells.push(el('td', 'num', at.length >= k ? Number(at[k - 1]).toFixed(2) : '—'), el('td', 'num', hat.length >= k ? Number(hat[k - 1]).toFixed(2) : '—'));
        cells.push(el('td', 'num', fmtCost(m.cost_usd, m.unpriced_requests)),
          el('td', 'num', !m.passes ? '—' : m.unpriced_requests ? 'unpriced' : fmtUSD(m.cost_per_pass)),
          el('td', 'num', fmtInt(Math.round(m.mean_tokens))),
          el('td', 'num', m.prompt_tokens ? fmtRate(100 * (m.cache_hit_rate || 0)) : '—'),
          el('td', 'num', fmtInt(m.tools || 0) + ' (' + fmtInt(m.tool_tokens || 0) + ')'),
          el('td', 'num', fmtSec(m.latency_p50) + ' / ' + fmtSec(m.latency_p95) + ' s'),
          el('td', 'num', Number(m.tool_calls_per_run || 0).toFixed(1)));
      }
      const tr = el('tr', '', cells);
      tr.dataset.model = m.model;
      body.appendChild(tr);
    });
    table.appendChild(body);
    const j = run.judge_cost;
    const judgeLine = j ? el('p', 'judge-cost', 'Judge ' + j.model + ': ' + fmtCost(j.cost_usd, j.unpriced_requests) + ' for ' + fmtInt(j.requests) +
      ' requests, counted once here and not in the models\' costs.') : null;
    if (judgeLine) judgeLine.id = 'judge-cost';
    const u = run.user_cost;
    const userLine = u && !run.rejudged ? el('p', 'judge-cost', 'Simulated user ' + u.model + ': ' + fmtCost(u.cost_usd, u.unpriced_requests) + ' for ' + fmtInt(u.requests) +
      ' requests, counted once here and not in the ' + (arms ? 'arms' : 'models') + '\' costs.') : null;
    if (userLine) userLine.id = 'user-cost';
    const note = el('p', 'interval-note', 'The 95% interval counts the repeats of a case as correlated: ' +
      'they weigh as many independent runs as the spread between the cases says, never more than the runs.');

    const pairs = el('table', 'mini');
    pairs.id = 'model-pairs';
    const pr = el('tr', '');
    const pairHead = arms ? 'Arms' : 'Models';
    for (const h of [pairHead, 'Cases', 'Only the first passed', 'Only the second passed', 'McNemar p', 'Adjusted p', 'Second less first, points (interval adjusted like p)']) pr.appendChild(el('th', h === pairHead ? '' : 'num', h));
    pairs.appendChild(el('thead', '', pr));
    const pb = el('tbody', '');
    for (const p of data.model_pairs || []) {
      pb.appendChild(el('tr', '', el('td', 'mono', p.a + ' vs ' + p.b), el('td', 'num', fmtInt(p.cases)),
        el('td', 'num', fmtInt(p.only_a)), el('td', 'num', fmtInt(p.only_b)),
        el('td', 'num', Number(p.mcnemar_p).toPrecision(3)),
        el('td', 'num' + (p.adjusted_p < 0.05 ? ' sig' : ''), Number(p.adjusted_p).toPrecision(3)),
        el('td', 'num', fmtPoints(p.uplift) + ' (' + fmtPoints(p.uplift_low) + ' to ' + fmtPoints(p.uplift_high) + fmtConfidence(p.confidence) + ')')));
    }
    pairs.appendChild(pb);
    const effects = armEffects();
    const verdicts = armVerdicts();

    const charts = el('div', 'model-charts', rateChart(board.filter(ran)), costChart(board.filter((m) => ran(m) && !m.unpriced_requests)));
    const matrix = el('details', 'matrix-box', el('summary', '', 'Cases by ' + variantWord));
    matrix.id = 'matrix';
    matrix.addEventListener('toggle', () => { if (matrix.open && matrix.children.length === 1) matrix.appendChild(matrixTable(models)); });
    const s = el('section', 'panel', el('h2', '', arms ? 'Arms' : 'Models'), table, judgeLine, userLine, data.repeats > 1 ? note : null, charts,
      verdicts, effects, el('h3', 'sub-h', arms ? 'Each two arms on the same cases (p adjusted by Holm over every pair)' : 'Each two models on the same cases'), pairs, matrix);
    s.id = 'models';
    return s;
  }
  const fmtPoints = (v) => (v > 0 ? '+' : '') + (100 * Number(v || 0)).toFixed(1);
  const fmtConfidence = (c) => (c ? ' at ' + Number((100 * c).toPrecision(4)) + '%' : '');
  // armVerdicts gives each arm's verdict against the baseline arm: better,
  // worse or inconclusive, the cases it improved and regressed, and what
  // it changes in tool definitions and cost per correct answer.
  function armVerdicts() {
    const verdicts = data.arm_verdicts || [];
    if (!verdicts.length) return null;
    const t = el('table', 'mini');
    t.id = 'arm-verdicts';
    const hr = el('tr', '');
    for (const [h, cls] of [['Arm', ''], ['Verdict', ''], ['Pass rate change, points', 'num'], ['Adjusted p', 'num'], ['Improved', ''], ['Regressed', ''], ['Tool definition tokens', 'num'], ['Cost per correct answer', 'num']]) hr.appendChild(el('th', cls, h));
    t.appendChild(el('thead', '', hr));
    const body = el('tbody', '');
    const names = (list) => (list && list.length ? fmtInt(list.length) + ': ' + list.slice(0, 5).join(', ') + (list.length > 5 ? ', and ' + fmtInt(list.length - 5) + ' more' : '') : '0');
    for (const v of verdicts) {
      const cost = v.cost_per_pass_change === null || v.cost_per_pass_change === undefined ? 'not comparable' :
        fmtUSD(v.baseline_cost_per_pass) + ' → ' + fmtUSD(v.cost_per_pass);
      const tr = el('tr', '', el('td', 'mono', v.arm), el('td', 'verdict-' + v.verdict, v.verdict),
        el('td', 'num', fmtPoints(v.effect) + ' (' + fmtPoints(v.low) + ' to ' + fmtPoints(v.high) + fmtConfidence(v.confidence) + ')'),
        el('td', 'num' + (v.adjusted_p < v.alpha ? ' sig' : ''), Number(v.adjusted_p).toPrecision(3)),
        el('td', 'mono', names(v.improved)), el('td', 'mono', names(v.regressed)),
        el('td', 'num', (v.tool_tokens_change > 0 ? '+' : '') + fmtInt(v.tool_tokens_change)), el('td', 'num', cost));
      tr.dataset.arm = v.arm;
      tr.dataset.verdict = v.verdict;
      body.appendChild(tr);
    }
    t.appendChild(body);
    return el('div', '', el('h3', 'sub-h', 'Each arm against the baseline arm ' + verdicts[0].baseline + ' (paired McNemar test, p adjusted by Holm over the arms, at ' + verdicts[0].alpha + ')'), t);
  }
  // armEffects shows what the arms change: the servers' uplift over the
  // arm without any, and each left-out tool's effect, costliest first.
  function armEffects() {
    const effects = data.arm_effects || [];
    if (!effects.length) return null;
    const t = el('table', 'mini');
    t.id = 'arm-effects';
    const hr = el('tr', '');
    for (const [h, cls] of [['What changes', ''], ['Cases', 'num'], ['Pass rate change, points (interval adjusted like p)', 'num'], ['Adjusted p', 'num']]) hr.appendChild(el('th', cls, h));
    t.appendChild(el('thead', '', hr));
    const body = el('tbody', '');
    for (const e of effects) {
      const what = e.kind === 'leave_one_out' ? 'leaving ' + e.hidden + ' out of ' + e.from : e.to + ' over ' + e.from + ' (no server)';
      const tr = el('tr', '', el('td', 'mono', what), el('td', 'num', fmtInt(e.cases)),
        el('td', 'num', fmtPoints(e.effect) + ' (' + fmtPoints(e.low) + ' to ' + fmtPoints(e.high) + fmtConfidence(e.confidence) + ')'),
        el('td', 'num' + (e.adjusted_p < 0.05 ? ' sig' : ''), Number(e.adjusted_p).toPrecision(3)));
      tr.dataset.kind = e.kind;
      body.appendChild(tr);
    }
    t.appendChild(body);
    return el('div', '', el('h3', 'sub-h', 'What the arms change: the servers over no server, and each tool left out, the costliest first'), t);
  }
  // rateChart draws each model's pass rate as a bar with its 95% interval.
  function rateChart(board) {
    const W = 420, row = 26, left = 150, H = board.length * row + 24;
    const svg = svgEl('svg', { viewBox: '0 0 ' + W + ' ' + H, width: W, height: H, role: 'img', 'aria-label': 'pass rate with its 95% interval per model' });
    svg.id = 'rate-chart';
    const x = (r) => left + (W - left - 12) * Math.max(0, Math.min(1, r));
    board.forEach((m, i) => {
      const y = 8 + i * row;
      svg.appendChild(svgEl('text', { x: left - 6, y: y + 13, 'text-anchor': 'end', class: 'chart-label' }, m.model));
      svg.appendChild(svgEl('rect', { x: left, y: y + 3, width: Math.max(1, x(m.pass_rate) - left), height: 14, class: 'chart-bar' }));
      svg.appendChild(svgEl('line', { x1: x(m.pass_rate_low), x2: x(m.pass_rate_high), y1: y + 10, y2: y + 10, class: 'chart-ci' }));
      for (const v of [m.pass_rate_low, m.pass_rate_high]) svg.appendChild(svgEl('line', { x1: x(v), x2: x(v), y1: y + 5, y2: y + 15, class: 'chart-ci' }));
    });
    for (const t of [0, 0.5, 1]) svg.appendChild(svgEl('text', { x: x(t), y: H - 4, 'text-anchor': 'middle', class: 'chart-axis' }, (100 * t) + '%'));
    return el('figure', 'chart', svg, el('figcaption', '', 'Pass rate and its 95% interval'));
  }
  // costChart plots each model's cost against its pass rate.
  function costChart(board) {
    const W = 420, H = 220, pad = 40;
    const maxCost = Math.max(...board.map((m) => m.cost_usd), 1e-9);
    const svg = svgEl('svg', { viewBox: '0 0 ' + W + ' ' + H, width: W, height: H, role: 'img', 'aria-label': 'cost against pass rate per model' });
    svg.id = 'cost-chart';
    const x = (c) => pad + (W - 2 * pad) * c / maxCost;
    const y = (r) => H - pad - (H - 2 * pad) * Math.max(0, Math.min(1, r));
    svg.appendChild(svgEl('line', { x1: pad, x2: W - pad, y1: H - pad, y2: H - pad, class: 'chart-axis-line' }));
    svg.appendChild(svgEl('line', { x1: pad, x2: pad, y1: pad / 2, y2: H - pad, class: 'chart-axis-line' }));
    svg.appendChild(svgEl('text', { x: W / 2, y: H - 8, 'text-anchor': 'middle', class: 'chart-axis' }, 'cost ' + fmtUSD(0) + ' – ' + fmtUSD(maxCost)));
    svg.appendChild(svgEl('text', { x: 4, y: pad / 2 + 4, class: 'chart-axis' }, 'pass rate'));
    for (const m of board) {
      const dot = svgEl('circle', { cx: x(m.cost_usd), cy: y(m.pass_rate), r: 5, class: 'chart-dot' });
      dot.appendChild(svgEl('title', {}, m.model + ': ' + fmtRate(100 * m.pass_rate) + ', ' + fmtUSD(m.cost_usd)));
      svg.appendChild(dot);
      svg.appendChild(svgEl('text', { x: x(m.cost_usd) + 8, y: y(m.pass_rate) + 4, class: 'chart-label' }, m.model));
    }
    const left = (data.models || []).filter((m) => m.runs > 0 && m.unpriced_requests).map((m) => m.model);
    return el('figure', 'chart', svg, el('figcaption', '', 'Cost against pass rate' + (left.length ? ' (unpriced, not shown: ' + left.join(', ') + ')' : '')));
  }
  // matrixTable lists every case with each model's outcome.
  function matrixTable(models) {
    const byCase = new Map();
    for (const c of cases) {
      if (!byCase.has(c.name)) byCase.set(c.name, new Map());
      byCase.get(c.name).set(c.model, c);
    }
    const t = el('table', 'mini matrix');
    const hr = el('tr', '', el('th', '', 'Case'));
    for (const m of models) hr.appendChild(el('th', 'mono', m.model));
    t.appendChild(el('thead', '', hr));
    const tb = el('tbody', '');
    for (const [name, row] of byCase) {
      const tr = el('tr', '', el('td', '', name));
      for (const m of models) {
        const c = row.get(m.model);
        const td = el('td', '', c ? [badge(c.status), marks(c)] : el('span', 'empty', '—'));
        if (c) { td.classList.add('clickable'); td.addEventListener('click', () => openCase(c.id)); }
        tr.appendChild(td);
      }
      tb.appendChild(tr);
    }
    t.appendChild(tb);
    return t;

  }

  // How far the verdicts can be trusted: the judge's calibration (make
  // calibrate) beside the run's verdicts, said plainly when there is none or
  // when it is weak.
  function trust() {
    const t = data.trust;
    if (!t || !t.level) return null;
    const titles = { measured: 'Judge calibrated', weak: 'Judge not trustworthy alone', none: 'Judge not calibrated', checks: 'Checks only: verdicts from the deterministic checks' };
    const p = el('section', 'panel trust t-' + (['measured', 'weak', 'none', 'checks'].includes(t.level) ? t.level : 'none'),
      el('h2', '', titles[t.level] || 'Judge calibration'), el('p', 'trust-message', t.message));
    for (const line of t.lines || []) p.appendChild(el('p', 'trust-message trust-line', line));
    p.id = 'trust';
    p.dataset.level = t.level;
    const a = t.judge || (t.level === 'checks' ? t.checks : null);
    if (a) {
      const dl = el('dl', 'facts');
      const f = (label, value, key) => { const d = el('div', '', el('dt', '', label), el('dd', '', value)); d.dataset.fact = key; dl.appendChild(d); };
      const pct = (v) => (typeof v === 'number' ? fmtRate(100 * v) : 'n/a');
      f('Wrong answers passed', pct(a.wrong_passed), 'wrong_passed');
      f('Right answers failed', pct(a.right_failed), 'right_failed');
      f('Decided', pct(a.decided), 'decided');
      f('Kappa on the decided', typeof a.kappa === 'number' ? a.kappa.toFixed(2) : 'undefined', 'kappa');
      f('Agreement on the decided', pct(a.agreement), 'agreement');
      f('Labelled answers', fmtInt(a.items), 'items');
      if (t.judge) {
        f('Undecided (unclear twice)', fmtInt(t.judge.unusable), 'unusable');
        if (t.judge.models && t.judge.models.length > 1) f('Judges split', fmtInt(t.judge.disagreements), 'disagreements');
        f('Judge prompt', String(t.judge.prompt_hash || '').replace(/^sha256:/, '').slice(0, 12), 'prompt');
        dl.lastChild.title = 'SHA-256 of the judge prompt: ' + String(t.judge.prompt_hash || '');
      }
      if (t.calibrated && !t.calibrated.startsWith('0001')) f('Calibrated', fmtDate(t.calibrated), 'calibrated');
      p.appendChild(dl);
      const c = a.confusion || {};
      const m = el('table', 'mini confusion');
      m.appendChild(el('thead', '', el('tr', '', el('th', '', 'Label'), el('th', 'num', 'Verdict yes'), el('th', 'num', 'Verdict no'), el('th', 'num', 'Undecided'))));
      m.appendChild(el('tbody', '',
        el('tr', '', el('td', '', 'yes (accept)'), el('td', 'num', fmtInt(c.label_yes_verdict_yes)), el('td', 'num', fmtInt(c.label_yes_verdict_no)), el('td', 'num', fmtInt(c.label_yes_undecided || 0))),
        el('tr', '', el('td', '', 'no (reject)'), el('td', 'num', fmtInt(c.label_no_verdict_yes)), el('td', 'num', fmtInt(c.label_no_verdict_no)), el('td', 'num', fmtInt(c.label_no_undecided || 0)))));
      p.appendChild(m);
    }
    if (t.judge && t.checks) {
      p.appendChild(el('p', 'trust-checks', 'Deterministic checks on the same labelled answers: wrong answers passed ' + (typeof t.checks.wrong_passed === 'number' ? fmtRate(100 * t.checks.wrong_passed) : 'n/a') +
        ', right answers failed ' + (typeof t.checks.right_failed === 'number' ? fmtRate(100 * t.checks.right_failed) : 'n/a') + ', decided ' + fmtRate(100 * (t.checks.decided || 0)) +
        ', kappa on the decided ' + (typeof t.checks.kappa === 'number' ? t.checks.kappa.toFixed(2) : 'undefined') + ' (' + fmtInt(t.checks.items) + ' answers, of every provenance).'));
    }
    return p;
  }

  function problems() {
    if (!data.problems || !data.problems.length) return null;
    const p = el('section', 'panel problems', el('h2', '', 'Run problems (' + data.problems.length + ')'));
    p.id = 'problems';
    data.problems.forEach((text, i) => {
      const nl = text.indexOf('\n');
      const d = el('details', '', el('summary', '', nl < 0 ? text : text.slice(0, nl)));
      if (nl >= 0) d.appendChild(el('pre', 'code', text.slice(nl + 1)));
      if (i < 3) d.open = true;
      p.appendChild(d);
    });
    return p;
  }

  // Notices are what the run said that is no problem, shown as such.
  function notices() {
    if (!data.notices || !data.notices.length) return null;
    const p = el('section', 'panel notices', el('h2', '', 'Notices (' + data.notices.length + ')'));
    p.id = 'notices';
    for (const text of data.notices) {
      const nl = text.indexOf('\n');
      const d = el('details', '', el('summary', '', nl < 0 ? text : text.slice(0, nl)));
      if (nl >= 0) d.appendChild(el('pre', 'code', text.slice(nl + 1)));
      p.appendChild(d);
    }
    return p;
  }

  function categories() {
    if (!data.categories || data.categories.length < 1) return null;
    const table = el('table', 'mini');
    table.id = 'categories';
    const headRow = el('tr', '');
    // Not run (the status not_run) and skipped (cases the run could not
    // evaluate) are columns of their own, each when some case has it.
    const notRun = totals.not_run > 0, skipped = totals.skipped > 0;
    const heads = [['Category', ''], ['', ''], ['Passed', 'num'], ['Rate', 'num'], ['Failed', 'num'], ['Errors', 'num'], ['Token limit', 'num']];
    if (notRun) heads.push(['Not run', 'num']);
    if (skipped) heads.push(['Skipped', 'num']);
    for (const [h, cls] of heads) headRow.appendChild(el('th', cls, h));
    table.appendChild(el('thead', '', headRow));
    const body = el('tbody', '');
    for (const c of data.categories) {
      const name = button('cat', c.name || '(none)', () => { setCategory(c.name); document.getElementById('cases').scrollIntoView(); });
      const cells = [
        el('td', '', name),
        el('td', 'bar-cell', bar(c, 'thin')),
        el('td', 'num', fmtInt(c.passed) + ' / ' + fmtInt(c.ran)),
        el('td', 'num', fmtRate(c.rate)),
        el('td', 'num', fmtInt(c.failed)),
        el('td', 'num', fmtInt(c.errors)),
        el('td', 'num', fmtInt(c.token_limit)),
      ];
      if (notRun) cells.push(el('td', 'num', fmtInt(c.not_run)));
      if (skipped) cells.push(el('td', 'num', fmtInt(c.skipped)));
      const tr = el('tr', '', cells);
      tr.dataset.category = c.name;
      body.appendChild(tr);
    }
    table.appendChild(body);
    return el('section', 'panel', el('h2', '', 'By category'), table);
  }

  function metricsSummary() {
    if (!data.metrics_summary || !data.metrics_summary.length) return null;
    const grid = el('div', 'metric-grid');
    for (const m of data.metrics_summary) {
      const over = m.kind === 'count' ? null : el('div', 'n', m.entries ? 'over ' + fmtInt(m.entries) + (m.entries === 1 ? ' case' : ' cases') : 'applies to no case');
      const tile = el('div', 'metric-tile', el('div', 'v', fmtMetric(m)), el('div', 'k', m.label || m.name), over);
      tile.title = m.name + (m.not_applicable ? ': not applicable' : '');
      grid.appendChild(tile);
    }
    const s = el('section', 'panel', el('h2', '', 'Metrics summary'), grid);
    s.id = 'metrics-summary';
    return s;
  }

  // ---- tools: each server's coverage, each tool's health, the changes ----
  // The columns of the tools table; sort gives the value sorted by.
  const toolColumns = [
    { key: 'name', label: 'Tool', sort: (r) => r.name.toLowerCase(), cell: (r) => toolCell(r) },
    { key: 'calls', label: 'Calls', num: true, sort: (r) => r.calls, cell: (r) => fmtInt(r.calls) },
    { key: 'cases', label: 'Cases', num: true, sort: (r) => r.cases, cell: (r) => fmtInt(r.cases) },
    { key: 'params', label: 'Params', num: true, sort: (r) => paramShare(r), cell: (r) => paramCell(r) },
    { key: 'definition_tokens', label: 'Def. tokens', num: true, sort: (r) => r.definition_tokens || 0, cell: (r) => (r.unknown ? '—' : fmtInt(r.definition_tokens || 0)) },

    {
      key: 'error_rate', label: 'Error rate', num: true, sort: (r) => (r.calls ? r.error_rate : -1),
      cell: (r) => {
        if (!r.calls) return el('span', 'empty', '—');
        const e = el('span', r.errors ? 'tool-err' : '', fmtRate(100 * r.error_rate));
        e.title = r.errors + ' of ' + count(r.calls, 'call') + ' failed: ' + r.error_results + ' error results, ' + r.refused +
          ' refused by the server, ' + r.argument_errors + ' with arguments against the schema' +
          (r.expected_errors ? '; ' + r.expected_errors + ' more failed as their case expects (expect_error), not counted' : '');
        if (!r.expected_errors) return e;
        return [e, el('div', 'tool-server', fmtInt(r.expected_errors) + ' expected')];
      },
    },
    { key: 'error_results', label: 'Error results', num: true, sort: (r) => r.error_results, cell: (r) => fmtInt(r.error_results) },
    { key: 'refused', label: 'Refused', num: true, sort: (r) => r.refused, cell: (r) => fmtInt(r.refused) },
    { key: 'argument_errors', label: 'Bad arguments', num: true, sort: (r) => r.argument_errors, cell: (r) => fmtInt(r.argument_errors) },
    {
      key: 'output_errors', label: 'Bad output', num: true, sort: (r) => r.output_errors || 0,
      cell: (r) => {
        const e = el('span', r.output_errors ? 'tool-err' : '', fmtInt(r.output_errors || 0));
        if (r.output_errors) e.title = (r.output_problems || []).join('\n');
        return e;
      },
    },
    { key: 'latency_p50_ms', label: 'p50 ms', num: true, sort: (r) => r.latency_p50_ms, cell: (r) => (r.calls ? fmtMs(r.latency_p50_ms) : '—') },
    { key: 'latency_p95_ms', label: 'p95 ms', num: true, sort: (r) => r.latency_p95_ms, cell: (r) => (r.calls ? fmtMs(r.latency_p95_ms) : '—') },
    { key: 'result_tokens_p50', label: 'Tokens p50', num: true, sort: (r) => r.result_tokens_p50, cell: (r) => (r.calls ? fmtInt(r.result_tokens_p50) : '—') },
    { key: 'result_tokens_max', label: 'Tokens max', num: true, sort: (r) => r.result_tokens_max, cell: (r) => (r.calls ? fmtInt(r.result_tokens_max) : '—') },
    { key: 'over_limit', label: 'Over limit', num: true, sort: (r) => r.over_limit, cell: (r) => fmtInt(r.over_limit) },
    { key: 'pass_share', label: 'Case passed', num: true, sort: (r) => (r.calls ? r.pass_share : -1), cell: (r) => (r.calls ? fmtRate(100 * r.pass_share) : '—') },
  ];
  // paramShare is the share of a tool's parameters some call passed; -1
  // for a tool without parameters.
  function paramShare(r) {
    const ps = r.parameters || [];
    return ps.length ? ps.filter((p) => p.calls > 0).length / ps.length : -1;
  }
  // paramCell reads "2 of 3" with a bar; the title names the parameters
  // never passed.
  function paramCell(r) {
    const ps = r.parameters || [];
    if (!ps.length) return el('span', 'empty', '—');
    const passed = ps.filter((p) => p.calls > 0);
    const cell = el('span', 'param-cov', passed.length + ' of ' + ps.length);
    const bar = el('span', 'param-bar');
    const fill = el('span', 'param-fill');
    fill.style.width = Math.round((100 * passed.length) / ps.length) + '%';
    bar.appendChild(fill);
    cell.appendChild(bar);
    const never = ps.filter((p) => !p.calls).map((p) => p.name);
    cell.title = never.length ? 'Never passed: ' + never.join(', ') : 'Every parameter was passed';
    return cell;
  }
  const fmtMs = (ms) => (Number(ms || 0) >= 100 ? fmtInt(Math.round(ms)) : Number(ms || 0).toFixed(1));
  // The tool's name and server, and its description and input schema to
  // open.
  function toolCell(r) {
    const kids = [el('span', 'tn', toolName(r.name))];
    if (r.unknown) kids.push(el('span', 'tag unknown-tool', 'no server offers it'));
    if (r.showServer) kids.push(el('div', 'tool-server', r.server));
    if (r.tool) {
      const d = el('details', 'tool-surface', el('summary', '', 'Description and schema'));
      d.appendChild(el('div', 'tool-desc', r.tool.description || '(no description)'));
      d.appendChild(el('pre', 'code', JSON.stringify(r.tool.parameters, null, 2)));
      if (r.schema_problem) d.appendChild(el('div', 'tool-problem', r.schema_problem));
      if (r.tool.output_schema) {
        d.appendChild(el('div', 'tool-desc', 'Output schema:'));
        d.appendChild(el('pre', 'code', JSON.stringify(r.tool.output_schema, null, 2)));
      }
      kids.push(d);
    }
    if (r.calls && (r.parameters || []).length) {
      // Each parameter, marked passed or never passed; its title says by
      // how many calls, and whether it is required.
      const box = el('div', 'params', 'Parameters: ');
      r.parameters.forEach((p, i) => {
        const c = el('code', p.calls ? 'passed' : 'never', p.name + (p.required ? '*' : ''));
        c.title = (p.required ? 'required; ' : '') + (p.calls ? 'passed by ' + fmtInt(p.calls) + (p.calls === 1 ? ' call' : ' calls') : 'never passed');
        box.append(i ? ' ' : '', c);
      });
      kids.push(box);
    }
    for (const prob of r.output_problems || []) kids.push(el('div', 'tool-problem output-problem', prob));
    if (r.elicitations) kids.push(el('div', 'tool-server', fmtInt(r.elicitations) + ' elicitations' + (r.unscripted ? ', ' + fmtInt(r.unscripted) + ' not scripted (declined)' : '')));
    return kids;
  }
  function toolsPanel() {
    const t = run.tools;
    if (!t || !t.servers || !t.servers.length) return null;
    const rows = [];
    t.servers.forEach((s) => {
      (s.stats || []).forEach((st, i) => rows.push(Object.assign({}, st, { server: s.id || s.server, tool: (s.surface || [])[i], showServer: t.servers.length > 1 })));
    });
    for (const st of t.unknown || []) rows.push(Object.assign({}, st, { server: '', unknown: true, showServer: false }));
    rows.forEach((r, i) => { r.index = i; });

    const panel = el('section', 'panel tools-panel', el('h2', '', 'Tools'));
    panel.id = 'tools';
    if (t.changes) panel.appendChild(toolChanges(t.changes));
    for (const s of t.servers) {
      const line = el('div', 'coverage', el('span', 'cov-server', s.server), ': ',
        el('strong', '', s.exercised + ' of ' + s.tools + ' exercised (' + Number(s.coverage || 0).toFixed(1) + '%)'));
      line.dataset.server = s.server;
      if (t.min_coverage) line.appendChild(el('span', s.coverage < t.min_coverage ? 'tag gate-fail' : 'tag gate-ok', 'minimum ' + t.min_coverage + '%'));
      panel.appendChild(line);
      // Beside tool coverage: parameter coverage, the context tax of the
      // server's definitions, and the protocol revision it spoke.
      const facts = el('div', 'surface-facts');
      facts.dataset.server = s.server;
      if (s.parameters) {
        const pc = el('span', 'param-line', 'Parameters: ', el('strong', '', s.parameters_passed + ' of ' + s.parameters + ' passed (' + Number(s.parameter_coverage || 0).toFixed(1) + '%)'));
        pc.id = 'param-coverage';
        facts.append(pc, ' · ');
      }
      if (t.encoding) {
        facts.appendChild(el('span', 'def-line', 'Definitions: ', el('strong', '', fmtInt(s.definition_tokens || 0) + ' tokens'), ' (' + t.encoding + ') with every request'));
        if (t.max_definition_tokens) facts.appendChild(el('span', t.definition_tokens > t.max_definition_tokens ? 'tag gate-fail' : 'tag gate-ok', 'at most ' + fmtInt(t.max_definition_tokens)));
      }
      if (s.protocol) facts.appendChild(el('span', 'tag protocol', 'MCP ' + s.protocol));
      if (facts.childNodes.length) panel.appendChild(facts);
      if (s.never_called && s.never_called.length) {
        const never = el('div', 'never-called', 'Never called: ', s.never_called.map((n, i) => [i ? ', ' : '', el('code', '', n)]));
        panel.appendChild(never);
      }
    }

    // A long list shows its first rows (in the chosen order) until asked.
    const FEW = 10;
    let showAll = rows.length <= FEW + 2;
    const moreTools = button('btn', 'Show all ' + rows.length + ' tools', () => { showAll = true; render(); });
    moreTools.id = 'more-tools';
    const sort = { key: 'calls', dir: -1 };
    const table = el('table', 'mini tools-table');
    table.id = 'tool-stats';
    const head = el('tr', '');
    const body = el('tbody', '');
    for (const col of toolColumns) {
      const th = el('th', col.num ? 'num' : '', col.label);
      th.dataset.key = col.key;
      th.tabIndex = 0;
      th.title = 'Sort by ' + col.label.toLowerCase();
      const by = () => {
        if (sort.key === col.key) sort.dir = -sort.dir;
        else { sort.key = col.key; sort.dir = col.num ? -1 : 1; }
        render();
      };
      th.addEventListener('click', by);
      th.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); by(); } });
      head.appendChild(th);
    }
    function render() {
      const col = toolColumns.find((c) => c.key === sort.key);
      const keyed = rows.map((r) => [col.sort(r), r]);
      keyed.sort((a, b) => (a[0] < b[0] ? -sort.dir : a[0] > b[0] ? sort.dir : a[1].index - b[1].index));
      body.textContent = '';
      for (const [, r] of showAll ? keyed : keyed.slice(0, FEW)) {
        const tr = el('tr', r.unknown ? 'unknown' : r.calls ? '' : 'never');
        tr.dataset.tool = r.name;
        for (const c of toolColumns) {
          const td = el('td', c.num ? 'num' : '');
          td.dataset.key = c.key;
          add(td, c.cell(r));
          tr.appendChild(td);
        }
        body.appendChild(tr);
      }
      for (const th of head.children) th.setAttribute('aria-sort', th.dataset.key === sort.key ? (sort.dir > 0 ? 'ascending' : 'descending') : 'none');
      moreTools.hidden = showAll;
    }
    render();
    table.append(el('thead', '', head), body);
    panel.append(el('div', 'tools-wrap', table), el('div', 'more', moreTools));
    return panel;
  }
  // toolChanges lists how the tool surface differs from the previous run's.
  function toolChanges(ch) {
    const box = el('div', 'tool-changes', el('h3', '', 'Changed since run ' + ch.since));
    box.id = 'tool-changes';
    const ul = el('ul', '');
    const tk = ch.tokens;
    if (tk && tk.before !== tk.now) {
      const grew = tk.now > tk.before;
      const li = el('li', grew ? 'grew' : '', 'Tool definitions ' + (grew ? 'grew' : 'shrank') + ': ' + fmtInt(tk.before) + ' → ' + fmtInt(tk.now) +
        ' tokens (' + (grew ? '+' : '') + fmtInt(tk.now - tk.before) + ', ' + tk.encoding + ')');
      li.id = 'token-change';
      if (grew) li.appendChild(el('span', 'tag gate-fail', 'the context tax of every request went up'));
      for (const g of tk.grew || []) li.appendChild(el('div', '', el('code', '', g.tool), ': ' + fmtInt(g.before) + ' → ' + fmtInt(g.now) + ' tokens'));
      ul.appendChild(li);
    }
    for (const s of ch.servers || []) {
      ul.appendChild(el('li', '', 'Server ', el('code', '', s.name), s.added ? ' added' : s.removed ? ' removed' : ': version ' + (s.old_version || '?') + ' → ' + (s.new_version || '?')));
    }
    for (const a of ch.added || []) ul.appendChild(el('li', 'added', 'Added: ', el('code', '', a.tool), ' (' + a.server + ')'));
    for (const r of ch.removed || []) ul.appendChild(el('li', 'removed', 'Removed: ', el('code', '', r.tool), ' (' + r.server + ')'));
    for (const c of ch.changed || []) {
      const li = el('li', 'changed', 'Changed: ', el('code', '', c.tool), ' (' + c.server + ')');
      if (c.description_changed) {
        li.appendChild(el('div', 'desc-was', 'Description was: ' + (c.old_description || '(none)')));
        li.appendChild(el('div', 'desc-now', 'Description now: ' + (c.new_description || '(none)')));
      }
      if (c.schema_diff) li.appendChild(el('pre', 'code schema-diff', c.schema_diff));
      ul.appendChild(li);
    }
    box.appendChild(ul);
    if (!run.reference) box.appendChild(el('p', 'invalidated', fmtInt(ch.invalidated_passes) + ' cached passes were invalidated by the change and ran again.'));
    return box;
  }

  // ---- cases table and controls ----
  const chipBox = el('div', 'chips');
  const catSelect = el('select', '');
  catSelect.id = 'category';
  catSelect.setAttribute('aria-label', 'Category');
  const search = el('input', '');
  search.type = 'search';
  search.id = 'search';
  search.placeholder = 'Search question, answer, reason, tools…  ( / )';
  search.setAttribute('aria-label', 'Search cases');
  const shownLabel = el('span', 'shown');
  shownLabel.id = 'shown';
  const table = el('table', 'cases');
  table.id = 'cases';
  const colgroup = el('colgroup', '');
  const headRow = el('tr', '');
  for (const col of columns) {
    colgroup.appendChild(el('col', col.w));
    // Metric names stand upright, so that every metric column is narrow.
    const th = el('th', (col.num ? 'num' : '') + (col.metric ? ' metric' : ''), col.metric ? el('span', 'rot', col.label) : col.label);
    th.dataset.key = col.key;
    th.tabIndex = 0;
    th.setAttribute('aria-sort', 'none');
    th.title = 'Sort by ' + (col.title || col.label.toLowerCase());
    const sortBy = () => {
      if (state.sortKey === col.key) state.sortDir = -state.sortDir;
      else { state.sortKey = col.key; state.sortDir = col.num || col.key === 'tools' ? -1 : 1; }
      apply();
    };
    th.addEventListener('click', sortBy);
    th.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sortBy(); } });
    headRow.appendChild(th);
  }
  const tbody = el('tbody', '');
  table.append(colgroup, el('thead', '', headRow), tbody);
  const tableWrap = el('div', 'table-wrap', table);
  const moreBtn = button('btn', '', () => { state.shown += PAGE; renderMore(); renderControls(); });
  moreBtn.id = 'more';
  const moreBox = el('div', 'more', moreBtn);

  const filters = [['all', 'All'], ['pass', 'Pass'], ['fail', 'Fail'], ['error', 'Error'], ['token_limit', 'Token limit'], ['cut', 'Cut off'], ['undecided', 'Undecided'], ['not_run', 'Not run'], ['skip', 'Skipped'], ['flaky', 'Flaky'], ['cached', 'Cached'], ['split', 'Judges split'], ['no_record', 'No record']];
  // Filters count rows: a case run several times is one row.
  const filterCount = { all: cases.length, pass: 0, fail: 0, error: 0, token_limit: 0, cut: 0, undecided: 0, not_run: 0, skip: 0, flaky: 0, cached: 0, split: 0, no_record: 0 };
  for (const c of cases) {
    if (Object.hasOwn(filterCount, c.status)) filterCount[c.status]++;
    if (c.flaky) filterCount.flaky++;
    if (c.cached) filterCount.cached++;
    if (c.split) filterCount.split++;
    if (c.no_record) filterCount.no_record++;
  }
  for (const [key, label] of filters) {
    if (key !== 'all' && !filterCount[key] && key !== 'pass' && key !== 'fail') continue;
    const chip = button('chip', [label, el('span', 'c', fmtInt(filterCount[key]))], () => setStatus(key));
    chip.dataset.status = key;
    chipBox.appendChild(chip);
  }
  catSelect.appendChild(el('option', '', 'All categories'));
  catSelect.options[0].value = '';
  // Options carry the category's index: a category may be named "".
  (data.categories || []).forEach((c, i) => {
    const o = el('option', '', (c.name || '(none)') + ' (' + c.total + ')');
    o.value = String(i);
    catSelect.appendChild(o);
  });
  catSelect.addEventListener('change', () => setCategory(catSelect.value === '' ? null : data.categories[Number(catSelect.value)].name));
  let searchTimer = 0;
  search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => { state.query = search.value; apply(); }, 120);
  });

  function setStatus(s) { state.status = s; apply(); }
  // setCategory filters by a category name, or shows all for null.
  function setCategory(name) {
    state.category = name;
    catSelect.value = name === null ? '' : String(data.categories.findIndex((c) => c.name === name));
    apply();
  }

  function row(c) {
    const tr = el('tr', 'r-' + statusClass(c.status));
    tr.dataset.id = c.id;
    tr.tabIndex = 0;
    for (const col of columns) {
      const td = el('td', col.num ? 'num' : '');
      td.dataset.key = col.key;
      add(td, col.cell(c));
      tr.appendChild(td);
    }
    return tr;
  }
  tbody.addEventListener('click', (e) => {
    const tr = e.target.closest('tr[data-id]');
    if (tr && !window.getSelection().toString()) openCase(Number(tr.dataset.id));
  });
  tbody.addEventListener('keydown', (e) => {
    const tr = e.target.closest('tr[data-id]');
    if (tr && e.key === 'Enter') openCase(Number(tr.dataset.id));
  });
  // The table holds the first state.shown rows of the filtered cases, but
  // renders only those near its scrolled view: the first BATCH (about two
  // views of rows), then a BATCH more each time its last rendered row comes
  // near the bottom of its box (the table scrolls in a box no taller than
  // the window).
  const nearEnd = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) renderMore();
  }, { root: tableWrap, rootMargin: '0px 0px 400px 0px' });
  function renderRows() {
    nearEnd.disconnect();
    tbody.textContent = '';
    state.rendered = 0;
    if (!state.filtered.length) {
      const td = el('td', '', 'No cases match the filters.');
      td.colSpan = columns.length;
      tbody.appendChild(el('tr', 'no-rows', td));
      return;
    }
    renderMore();
  }
  // renderMore renders the next BATCH of the rows the table holds.
  function renderMore() {
    const to = Math.min(state.rendered + BATCH, state.shown, state.filtered.length);
    if (to <= state.rendered) return;
    const frag = document.createDocumentFragment();
    for (let i = state.rendered; i < to; i++) frag.appendChild(row(state.filtered[i]));
    tbody.appendChild(frag);
    state.rendered = to;
    nearEnd.disconnect();
    nearEnd.observe(tbody.lastElementChild);
  }
  function renderControls() {
    for (const chip of chipBox.children) chip.setAttribute('aria-pressed', String(chip.dataset.status === state.status));
    for (const th of headRow.children) {
      th.setAttribute('aria-sort', th.dataset.key === state.sortKey ? (state.sortDir > 0 ? 'ascending' : 'descending') : 'none');
    }
    const n = state.filtered.length, shown = Math.min(state.shown, n);
    shownLabel.textContent = 'Showing ' + fmtInt(shown) + ' of ' + fmtInt(n) + (n !== cases.length ? ' matching (' + fmtInt(cases.length) + ' in all)' : '');
    const rest = n - shown;
    moreBox.hidden = rest <= 0;
    moreBtn.textContent = 'Show ' + fmtInt(Math.min(PAGE, rest)) + ' more (' + fmtInt(rest) + ' not shown)';
  }

  // The table scrolls in its own box, so that its header and its
  // horizontal scroll bar stay on screen; shadows show what is scrolled
  // out of view on either side.
  const tableBox = el('div', 'table-box', tableWrap);
  function markScroll() {
    const left = tableWrap.scrollLeft;
    tableBox.classList.toggle('scrolled', left > 0);
    tableBox.classList.toggle('more-right', left + tableWrap.clientWidth < tableWrap.scrollWidth - 1);
  }
  tableWrap.addEventListener('scroll', markScroll, { passive: true });
  window.addEventListener('resize', markScroll);
  const casesPanel = el('section', 'panel cases-panel',
    el('div', 'toolbar', el('h2', '', 'Cases'), chipBox, catSelect, search, shownLabel),
    tableBox, moreBox);

  add(app, [header(), summary(), trust(), problems(), notices(), modelsView(), categories(), metricsSummary(), toolsPanel(), casesPanel]);

  // ---- case view ----
  const overlay = el('div', 'overlay');
  overlay.hidden = true;
  const drawer = el('aside', 'drawer');
  drawer.id = 'detail';
  drawer.hidden = true;
  drawer.setAttribute('role', 'dialog');
  drawer.setAttribute('aria-modal', 'true');
  document.body.append(overlay, drawer);
  overlay.addEventListener('click', closeCase);
  let lastFocus = null;

  function position() { return state.filtered.findIndex((c) => c.id === state.open); }
  function step(delta) {
    const i = position() + delta;
    if (i >= 0 && i < state.filtered.length) openCase(state.filtered[i].id);
  }

  // The blocks of the cases' details follow this script; while the browser
  // still parses them, opening a case waits for the page to finish
  // loading. A case's details are in its own block case-N, plain JSON, or
  // (in a large report) in the block cases-F of the cases from F on: the
  // JSON array of their details, gzip-compressed in base64, which is
  // inflated when one of its cases is opened (the last few kept). Texts the
  // same as others are left out of the details: parseDetail puts back those
  // of the row c, which shows the run, and of the record itself.
  function parseDetail(detail, c) {
    const rec = detail.record;
    if (rec && detail.from_row) {
      rec.question = c.question;
      rec.expected = c.expected;
      rec.response = c.response;
    }
    delete detail.from_row;
    if (rec) {
      const results = new Map();
      for (const t of rec.tool_calls || []) results.set(t.id, t.result);
      for (const m of rec.conversation || []) {
        if (m.content_is_result) { m.content = results.get(m.tool_call_id) ?? ''; delete m.content_is_result; }
        if (m.content_is_response) { m.content = rec.response; delete m.content_is_response; }
      }
    }
    return detail;
  }
  const inflated = new Map(); // the first case of a block: the promise of its details
  // caseDetail gives the details of run runId of the row c, or the promise
  // of them.
  function caseDetail(c, runId) {
    const plain = document.getElementById('case-' + runId);
    if (plain) return parseDetail(JSON.parse(plain.textContent), c);
    for (let first = runId; first >= 0; first--) {
      const block = document.getElementById('cases-' + first);
      if (!block) continue;
      let list = inflated.get(first);
      if (!list) {
        list = inflate(block.textContent).then((text) => JSON.parse(text));
        list.catch(() => inflated.delete(first));
        inflated.set(first, list);
        if (inflated.size > 4) inflated.delete(inflated.keys().next().value);
      }
      return list.then((details) => {
        const detail = details[runId - first];
        return detail ? parseDetail(detail, c) : { record: null };
      });
    }
    return { record: null };
  }
  let opening = 0; // the latest openCase: an earlier one still inflating is dropped

  // caseAnchor is the fragment that links to case c: its name, and its
  // model when the run has several (name@model), URL-encoded.
  function caseAnchor(c) {
    return encodeURIComponent(c.name) + (c.model ? '@' + encodeURIComponent(c.model) : '');
  }

  // caseByAnchor finds the row a fragment names: encoded as caseAnchor
  // writes it, or the case name as typed (spaces and all); -1 when none.
  function caseByAnchor(hash) {
    if (!hash) return -1;
    let typed = hash;
    try { typed = decodeURIComponent(hash); } catch (e) { /* keep it as it is */ }
    let byName = -1;
    for (let i = 0; i < cases.length; i++) {
      if (caseAnchor(cases[i]) === hash) return i;
      if (byName < 0 && (cases[i].name === typed || cases[i].name + '@' + cases[i].model === typed)) byName = i;
    }
    if (byName < 0 && typed.lastIndexOf('@') > 0) {
      // name@model of a run whose one model the table does not show
      const name = typed.slice(0, typed.lastIndexOf('@'));
      byName = cases.findIndex((c) => !c.model && c.name === name);
    }
    return byName;
  }

  // openCase shows the row id, at its run runId (default: the run the row
  // shows).
  function openCase(id, runId) {
    const c = cases[id];
    if (!c) return;
    if (runId === undefined || !c.runs.includes(runId)) runId = c.shown;
    if (document.readyState === 'loading') {
      document.body.classList.add('waiting');
      document.addEventListener('DOMContentLoaded', () => { document.body.classList.remove('waiting'); openCase(id, runId); }, { once: true });
      return;
    }
    const ticket = ++opening;
    const detail = caseDetail(c, runId);
    if (!(detail instanceof Promise)) {
      showCase(id, runId, detail);
      return;
    }
    document.body.classList.add('waiting');
    detail.catch((err) => ({ record: null, output: 'The case could not be read: ' + err }))
      .then((detail) => {
        document.body.classList.remove('waiting');
        if (ticket === opening) showCase(id, runId, detail);
      });
  }

  function showCase(id, runId, detail) {
    const c = cases[id];
    if (drawer.hidden) lastFocus = document.activeElement;
    state.open = id;
    drawer.textContent = '';
    drawer.dataset.id = id;
    const pos = position();
    const rec = detail.record;

    const closeBtn = button('icon-btn', '✕', closeCase);
    closeBtn.title = 'Close (Esc)';
    closeBtn.id = 'close';
    const prev = button('icon-btn', '‹', () => step(-1));
    prev.title = 'Previous case (←)';
    prev.disabled = pos <= 0;
    const next = button('icon-btn', '›', () => step(1));
    next.title = 'Next case (→)';
    next.disabled = pos < 0 || pos >= state.filtered.length - 1;
    const where = rec && rec.file ? rec.file + (rec.line ? ':' + rec.line : '') : '';
    const runStatus = rec ? rec.status : (detail.action === 'skip' ? 'skip' : c.status);
    const head = el('div', 'drawer-head',
      el('div', 'titles',
        el('div', '', badge(c.runs.length > 1 ? runStatus : c.status), flakyTag(c), rec && rec.cached ? el('span', 'tag cached', 'cached') : null, !rec && runStatus !== 'skip' ? el('span', 'tag norecord', 'no record') : null),
        el('h2', '', c.name),
        el('div', 'sub', [c.model, c.category, c.test, where].filter(Boolean).join(' · ')),
        runPicker(c, id, runId)),
      el('div', 'nav', prev, next, closeBtn));
    const body = el('div', 'drawer-body');
    drawer.append(head, body);

    body.appendChild(facts(c, detail));
    const verdict = rec ? rec.verdict : c.verdict;
    const reason = rec ? rec.reason : c.reason;
    const reasonBlock = section(verdict ? 'Judge (' + verdict + ')' : 'Reason', reason || '—');
    reasonBlock.classList.add('reason-' + statusClass(runStatus));
    body.appendChild(reasonBlock);
    if (c.flip) {
      const since = section('Since the baseline', c.flip);
      if (data.comparison) since.appendChild(comparisonLink('This case in the comparison', '#' + caseAnchor(c)));
      body.appendChild(since);
    }
    if (rec && rec.judges && rec.judges.length > 1) body.appendChild(judgesBlock(rec));
    if (rec) {
      body.appendChild(section('Question', rec.question || '—'));
      body.appendChild(section('Expected', rec.expected || '—'));
      body.appendChild(section('Response', rec.response || '—'));
      if (rec.checks && rec.checks.length) body.appendChild(el('div', 'block', el('h3', '', 'Checks'), checkList(rec.checks)));
      if (rec.claims && rec.claims.length) body.appendChild(claimsBlock(rec));
      if (rec.turns && rec.turns.length) body.appendChild(turnsBlock(rec));
      if (rec.facts && rec.facts.length) body.appendChild(factsBlock(rec.facts));
      if (rec.judge_prompt) {
        const jp = section('Judge prompt', rec.judge_prompt, true);
        jp.id = 'judge-prompt';
        body.appendChild(jp);
      }
      if (rec.judge_reply) {
        const jr = section('Judge reply', rec.judge_reply, true);
        jr.id = 'judge-reply';
        body.appendChild(jr);
      }
      if (rec.judge_raw) body.appendChild(section('Judge reply (raw)', rec.judge_raw, true));
      if (rec.server_stderr) body.appendChild(section('Server stderr', rec.server_stderr, true));
    }

    const conv = (rec && rec.conversation) || [];
    const calls = (rec && rec.tool_calls) || [];
    const tabs = [
      ['conversation', 'Conversation', conv.length, () => conversation(conv, calls)],
      ['tools', 'Tool calls', calls.length, () => toolCalls(calls)],
      ['json', 'JSON', null, () => { const p = el('pre', 'code tall', JSON.stringify(rec || detail, null, 2)); return el('div', 'block', p); }],
      ['output', 'Test output', null, () => testOutput(detail)],
    ];
    const tabBar = el('div', 'tabs');
    tabBar.setAttribute('role', 'tablist');
    const panes = el('div', 'panes');
    const built = {};
    const select = (key) => {
      for (const t of tabBar.children) t.setAttribute('aria-selected', String(t.dataset.tab === key));
      for (const p of panes.children) p.hidden = p.dataset.tab !== key;
      if (!built[key]) {
        const tab = tabs.find((t) => t[0] === key);
        const pane = el('div', 'pane', tab[3]());
        pane.dataset.tab = key;
        panes.appendChild(pane);
        built[key] = true;
      }
    };
    for (const [key, label, n] of tabs) {
      const t = button('tab', [label, n === null ? null : el('span', 'c', String(n))], () => select(key));
      t.dataset.tab = key;
      t.setAttribute('role', 'tab');
      tabBar.appendChild(t);
    }
    body.append(tabBar, panes);
    select(rec ? 'conversation' : 'output');

    overlay.hidden = false;
    drawer.hidden = false;
    document.body.classList.add('noscroll');
    body.scrollTop = 0;
    closeBtn.focus();
    try { history.replaceState(null, '', '#' + caseAnchor(c)); } catch (e) { /* file:// may refuse */ }
  }

  // runPicker lists a case's runs as buttons, the shown one pressed.
  function runPicker(c, id, runId) {
    if (c.runs.length < 2) return null;
    const box = el('div', 'runs', el('span', 'runs-label', 'Runs (' + c.passes + '/' + c.ran + ' passed' + (c.not_run ? ', ' + fmtInt(c.not_run) + ' not run' : '') + '):'));
    box.id = 'runs';
    c.runs.forEach((r, k) => {
      const b = button('run-btn m-' + statusClass(c.marks[k]), String(k + 1), () => openCase(id, r));
      b.title = 'Run ' + (k + 1) + ': ' + statusInfo(c.marks[k]).label;
      b.setAttribute('aria-pressed', String(r === runId));
      b.dataset.run = String(r);
      box.appendChild(b);
    });
    return box;
  }

  function closeCase() {
    if (drawer.hidden) return;
    drawer.hidden = true;
    overlay.hidden = true;
    drawer.textContent = '';
    state.open = -1;
    document.body.classList.remove('noscroll');
    try { history.replaceState(null, '', location.pathname + location.search); } catch (e) { /* ignore */ }
    if (lastFocus && document.contains(lastFocus)) lastFocus.focus();
  }

  // Each judge's verdict and reason, with its reply (or an unusable reply as it came).
  function judgesBlock(rec) {
    const ul = el('ul', 'judge-list');
    for (const j of rec.judges) {
      const li = el('li', '', el('span', 'mono', j.model), judgeVerdict(j), el('span', 'detail', j.error || j.reason || ''));
      if (j.raw) li.appendChild(el('pre', 'code', j.raw));
      else if (j.reply) li.appendChild(el('pre', 'code', j.reply));
      ul.appendChild(li);
    }
    const title = 'Judges' + (rec.judge_disagreement ? ' (split)' : ' (unanimous)');
    const b = el('div', 'block judges-block', el('h3', '', title), ul);
    b.id = 'judges';
    return b;
  }

  // checkList lists checks: passed, failed, or undecided (not sure: the
  // judge decides).
  function checkList(checks) {
    const ul = el('ul', 'checks');
    for (const ch of checks) {
      const state = ch.passed ? ['ok', '✓', 'passed'] : ch.undecided ? ['unsure', '?', 'undecided'] : ['no', '✕', 'failed'];
      const mark = el('span', state[0], state[1]);
      mark.title = state[2];
      ul.appendChild(el('li', '', mark, ch.check, ch.detail ? el('span', 'detail', ch.detail) : null));
    }
    return ul;
  }

  // claimsBlock shows a case graded by claims: each claim's verdict, why,
  // each judge's verdict and the claim's own checks, and the coverage.
  function claimsBlock(rec) {
    const cov = typeof rec.coverage === 'number' ? 'coverage ' + rec.coverage.toFixed(2) : 'coverage undecided';
    const ol = el('ol', 'claims');
    for (const cl of rec.claims) {
      const li = el('li', 'claim claim-' + cl.verdict, el('span', 'claim-verdict', cl.verdict), el('span', 'claim-text', cl.claim));
      if (cl.reason) li.appendChild(el('div', 'detail', cl.reason));
      if (cl.judges && cl.judges.length > 1) li.appendChild(el('div', 'detail', cl.judges.map((j) => j.model + ': ' + j.verdict).join(' · ')));
      if (cl.checks && cl.checks.length) li.appendChild(checkList(cl.checks));
      ol.appendChild(li);
    }
    const b = el('div', 'block', el('h3', '', 'Claims (' + cov + ')'), ol);
    b.id = 'claims';
    return b;
  }

  // turnsBlock shows a conversation turn by turn: each turn's status, the
  // user's message (a simulated user's marked so, with the facts it
  // leaked), the agent's reply, the tools it called, its checks and why it
  // has its status; a turn not sent says so.
  function turnsBlock(rec) {
    const calls = rec.tool_calls || [];
    const n = rec.turns.length;
    const ol = el('ol', 'turns');
    for (const t of rec.turns) {
      const li = el('li', 'turn turn-' + statusClass(t.status), el('div', 'turn-head', badge(t.status), el('span', 'turn-name', 'turn ' + t.turn + ' of ' + n)));
      li.appendChild(el('div', 'turn-user', el('span', 'who', t.simulated ? 'simulated user' : 'user'), t.user));
      if (t.leaks && t.leaks.length) li.appendChild(el('div', 'detail leak', 'leak: the simulated user gave ' + t.leaks.join('; ') + ' before the agent asked for it'));
      if (t.status === 'not_run') {
        li.appendChild(el('div', 'detail', t.reason || 'not sent: an earlier turn ended the conversation'));
        ol.appendChild(li);
        continue;
      }
      li.appendChild(el('div', 'turn-reply', el('span', 'who', 'agent'), longText('text', t.reply || '—')));
      const used = (t.tool_calls || []).map((i) => calls[i]).filter(Boolean);
      if (used.length) li.appendChild(el('div', 'detail', 'tools: ' + used.map((c) => c.name).join(', ')));
      if (t.checks && t.checks.length) li.appendChild(checkList(t.checks));
      if (t.reason && t.status !== 'pass') li.appendChild(el('div', 'detail', t.reason));
      ol.appendChild(li);
    }
    const b = el('div', 'block', el('h3', '', 'Turns (' + n + ')'), ol);
    b.id = 'turns';
    return b;
  }

  // factsBlock shows, for a reference run, which facts of the expected
  // answer the reference trajectory's results hold.
  function factsBlock(facts) {
    const ul = el('ul', 'checks facts-held');
    for (const f of facts) {
      const state = f.status === 'found' ? ['ok', '✓'] : f.status === 'computed' ? ['unsure', '∑'] : ['no', '✕'];
      ul.appendChild(el('li', '', el('span', state[0], state[1]), f.fact + ': ' + f.status, f.how ? el('span', 'detail', f.how) : null));
    }
    return el('div', 'block', el('h3', '', 'Facts of the expected answer in the reference results'), ul);
  }

  // traceLink is a case run's trace ID, linked to the trace viewer the
  // run's trace URL template (EVAL_TRACE_URL) names, if any: an http(s)
  // URL with {trace_id} standing for the ID.
  function traceLink(id) {
    const tpl = data.run.trace_url || '';
    if (!/^[0-9a-f]{32}$/.test(id) || !/^https?:\/\//.test(tpl)) return id;
    const a = el('a', 'trace-link', id);
    a.href = tpl.split('{trace_id}').join(id);
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
    return a;
  }

  // comparisonLink links compare.html, written beside the report by a
  // comparison with a baseline, at fragment.
  function comparisonLink(text, fragment) {
    const a = el('a', 'comparison-link', text);
    a.href = data.comparison.href + (fragment || '');
    return el('p', '', a);
  }

  function section(title, text, code) {
    return el('div', 'block', el('h3', '', title), longText(code ? 'code' : 'text', String(text), code));
  }

  function facts(c, detail) {
    const dl = el('dl', 'facts');
    const f = (label, value) => { if (value !== '' && value !== null && value !== undefined) dl.appendChild(el('div', '', el('dt', '', label), el('dd', '', value))); };
    const rec = detail.record;
    if (rec) {
      const u = rec.usage || {};
      f('Tokens', fmtInt(u.total_tokens) + (u.estimated ? ' (estimated)' : ''));
      f('Prompt / completion', fmtInt(u.prompt_tokens) + ' / ' + fmtInt(u.completion_tokens));
      if (u.cached_tokens) f('Cached tokens', fmtInt(u.cached_tokens));
      f('Requests', fmtInt(u.requests));
      if (u.cost_usd || u.unpriced_requests) {
        f('Cost', fmtCost(u.cost_usd, u.unpriced_requests) + (rec.cached ? ' (saved: the cache answered)' : ''));
      }
      const ju = rec.judge_usage;
      if (ju && (ju.cost_usd || ju.unpriced_requests)) f('Of it, the judge', fmtCost(ju.cost_usd, ju.unpriced_requests));
      f('Seconds', fmtSec(rec.seconds));
      f('Model', rec.model);
      f('Judge', rec.judge_model);
      if (rec.started_at && !rec.started_at.startsWith('0001')) f('Started', fmtDate(rec.started_at));
      if (rec.trace_id) f('Trace', traceLink(rec.trace_id));
      if (rec.usage && rec.usage.retries) f('Retries', fmtInt(rec.usage.retries));
      if (rec.kind) f('Kind', rec.kind);
      if (rec.reference) f('Answer', 'reference agent');
    }
    if (c.marks) {
      f('Pass rate', fmtRate(100 * c.rate) + ' (' + c.passes + ' of ' + count(c.ran, 'run') + (c.not_run ? '; ' + fmtInt(c.not_run) + ' not run' : '') + ')');
      const ks = (xs) => xs.map((v, i) => (i + 1) + ': ' + Number(v).toFixed(2)).join(', ');
      if (c.pass_at_k) { f('pass@k', ks(c.pass_at_k)); f('pass^k', ks(c.pass_hat_k)); }
    }
    // A report rebuilt from the records alone (a plain go test run keeps no
    // stream) has no test events: then there is nothing to say of go test.
    if (detail.unfinished || detail.action) f('go test', detail.unfinished ? 'did not finish' : detail.action + ' (' + fmtSec(detail.elapsed) + ' s)');
    for (const [i, k] of (data.metric_keys || []).entries()) if (score(c, i) !== undefined) f(metricLabel(k), fmtScore(score(c, i)));
    return dl;
  }

  // A tool call: t has name, is_error and not_run; resultText is null in
  // the conversation, where the tool message shows the result.
  function callBlock(t, args, resultText, ms, index) {
    const headKids = [index !== undefined ? el('span', 'empty', '#' + (index + 1)) : null, el('span', 'tn', t.name), callMark(t)];
    if (typeof ms === 'number' && ms > 0) headKids.push(el('span', 'dur', ms >= 1000 ? (ms / 1000).toFixed(1) + ' s' : Math.round(ms) + ' ms'));
    const box = el('div', 'call' + (t.not_run ? ' notrun' : t.is_error ? ' err' : ''), el('div', 'call-head', headKids));
    box.appendChild(el('span', 'lbl', 'Arguments'));
    box.appendChild(longText('code', pretty(args || '') || '{}', true));
    if (resultText !== null) {
      box.appendChild(el('span', 'lbl', t.not_run ? 'Not run' : t.is_error ? 'Error' : 'Result'));
      box.appendChild(longText('code', pretty(resultText) || '(empty)', true));
    }
    for (const e of t.elicitations || []) box.appendChild(elicitation(e));
    if (t.output_error) box.appendChild(el('div', 'call-note bad', 'Output schema: ' + t.output_error));
    if (t.task) box.appendChild(el('div', 'call-note', 'Ran as task ' + t.task.id + ': ' + t.task.status + ' after ' + fmtInt(t.task.polls) + ' polls'));
    if (t.resource) box.appendChild(el('div', 'call-note', 'Read the linked resource ', el('code', '', t.resource)));
    for (const l of t.links || []) box.appendChild(el('div', 'call-note', 'Linked: ', el('code', '', l.uri), (l.name ? ' ' + l.name : '') + (l.mime_type ? ' (' + l.mime_type + ')' : '')));
    if (t.stderr) {
      box.appendChild(el('span', 'lbl', 'Server stderr'));
      box.appendChild(longText('code', t.stderr, true));
    }
    return box;
  }

  // One round trip of a server's request for the user's input: what it
  // asked, and the reply the case scripted (or the decline of one no case
  // scripted).
  function elicitation(e) {
    const box = el('div', 'elicit' + (e.scripted ? '' : ' unscripted'));
    const ask = [el('span', 'lbl', 'Server asked'), el('div', 'elicit-msg', e.message || '(no message)')];
    if (e.mode === 'url') ask.push(el('div', 'elicit-fields', 'Open ', el('code', '', e.url || '')));
    if ((e.fields || []).length) ask.push(el('div', 'elicit-fields', 'Fields: ', e.fields.map((f, i) => [i ? ', ' : '', el('code', '', f)])));
    box.append(...ask);
    const reply = el('div', 'elicit-reply', el('strong', '', e.action));
    if (e.content) reply.append(' ', el('code', '', JSON.stringify(e.content)));
    if (!e.scripted) reply.append(el('span', 'tag', 'not scripted: declined'));
    if (e.note) reply.append(el('div', 'elicit-fields', e.note));
    box.append(el('span', 'lbl', 'Reply'), reply);
    return box;
  }

  function conversation(conv, calls) {
    if (!conv.length) return el('p', 'none', 'No conversation recorded.');
    const failed = new Set(), notRun = new Set();
    for (const t of calls) {
      if (t.not_run) notRun.add(t.id);
      else if (t.is_error) failed.add(t.id);
    }
    const mark = (id) => callMark({ not_run: notRun.has(id), is_error: failed.has(id) });
    const chat = el('div', 'chat');
    for (const m of conv) {
      const role = String(m.role || '');
      const content = typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
      if (role === 'system') {
        const d = el('details', 'msg msg-system', el('summary', '', 'System prompt'));
        d.appendChild(longText('msg-body', content || '', false));
        chat.appendChild(d);
        continue;
      }
      const headKids = [el('span', 'role', role)];
      if (m.name) headKids.push(el('span', 'mono', m.name));
      if (role === 'tool') headKids.push(mark(m.tool_call_id));
      const msg = el('div', 'msg msg-' + (['user', 'assistant', 'tool'].includes(role) ? role : 'assistant'), el('div', 'msg-head', headKids));
      if (content) msg.appendChild(role === 'tool' ? longText('msg-body', pretty(content), false) : longText('msg-body', content, false));
      for (const tc of m.tool_calls || []) {
        const fn = tc.function || {};
        msg.appendChild(callBlock({ name: '→ ' + (fn.name || '?'), is_error: failed.has(tc.id), not_run: notRun.has(tc.id) }, fn.arguments, null));
      }
      chat.appendChild(msg);
    }
    return chat;
  }

  function toolCalls(calls) {
    if (!calls.length) return el('p', 'none', 'No tool calls.');
    return el('div', '', calls.map((t, i) => callBlock(t, t.arguments, t.result || '', t.duration_ms, i)));
  }

  function testOutput(detail) {
    const box = el('div', '');
    if (detail.package) box.appendChild(el('p', 'none', 'Package ' + detail.package));
    const attrs = detail.attrs ? Object.keys(detail.attrs).sort() : [];
    if (attrs.length) {
      const dl = el('dl', 'facts attrs');
      for (const k of attrs) dl.appendChild(el('div', '', el('dt', '', k), el('dd', '', own(detail.attrs, k))));
      box.appendChild(dl);
    }
    box.appendChild(detail.output ? el('div', 'block', el('pre', 'code tall', detail.output)) : el('p', 'none', 'No test output.'));
    return box;
  }

  // ---- keyboard ----
  document.addEventListener('keydown', (e) => {
    const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement;
    if (!drawer.hidden) {
      if (e.key === 'Escape') { e.preventDefault(); closeCase(); }
      else if (!typing && e.key === 'ArrowLeft') step(-1);
      else if (!typing && e.key === 'ArrowRight') step(1);
      return;
    }
    if (e.key === '/' && !typing) { e.preventDefault(); search.focus(); }
  });

  apply();
  performance.mark('mcpeval:table-shown'); // make bench measures from it
  if (document.readyState === 'loading') {
    shownLabel.textContent += ' · loading case details…';
    document.addEventListener('DOMContentLoaded', renderControls, { once: true });
  }
  // A case's stable link is report.html#<case name> (#<case name>@<model>
  // with several models): it opens that case whatever the table's order.
  // #case-N, the N-th row, still works.
  const openFromHash = () => {
    const m = /^#case-(\d+)$/.exec(location.hash);
    if (m) { openCase(Number(m[1])); return; }
    const id = caseByAnchor(location.hash.slice(1));
    if (id >= 0) openCase(id);
  };
  openFromHash();
  window.addEventListener('hashchange', openFromHash);
})();
