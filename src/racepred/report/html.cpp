#include "racepred/report/html.hpp"

#include <algorithm>
#include <ostream>
#include <set>

namespace racepred {
namespace {

using nlohmann::ordered_json;

// The keys whose string values name a location (races, stacks, locks, cycles, interleavings).
bool names_location(const std::string& key) {
  return key == "location" || key == "first_location" || key == "second_location";
}

void collect_locations(const ordered_json& j, std::set<std::string>& out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      if (value.is_string() && names_location(key)) {
        out.insert(value.get<std::string>());
      } else if (value.is_structured()) {
        collect_locations(value, out);
      }
    }
  } else if (j.is_array()) {
    for (const ordered_json& v : j) collect_locations(v, out);
  }
}

std::string html_escape(std::string_view s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A snippet line longer than this is cut (minified or generated sources).
constexpr size_t kMaxSnippetLine = 400;

constexpr const char* kStyle = R"racepred(<style>
:root{--fg:#1d2330;--muted:#5b6475;--line:#d8dde6;--bg:#f6f7f9;--accent:#2457c5;--w:#b3261e;--r:#1f7a3a;--hl:#fff3bf}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:#fff}
header{padding:14px 20px 10px;border-bottom:1px solid var(--line);background:var(--bg)}
h1{font-size:18px;margin:0 0 4px}
h3{font-size:15px;margin:4px 0 8px}
h4{font-size:13px;margin:10px 0 6px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.sub{color:var(--muted);overflow-wrap:anywhere}
#counts span{display:inline-block;margin-right:14px}
#filters{display:flex;flex-wrap:wrap;gap:8px 14px;align-items:end;padding:10px 20px;border-bottom:1px solid var(--line);position:sticky;top:0;background:#fff;z-index:2}
#filters label{display:flex;flex-direction:column;font-size:12px;color:var(--muted)}
#filters select,#filters input{font:inherit;padding:3px 6px;border:1px solid var(--line);border-radius:4px;min-width:10em}
#shown{color:var(--muted);margin-left:auto}
main{padding:0 20px 30px}
#list{margin-top:8px}
.row{display:grid;grid-template-columns:3.5em 9em minmax(8em,1.3fr) 7em 7em minmax(12em,2fr) 3.5em;gap:0 10px;padding:5px 8px;border-bottom:1px solid var(--line)}
.row>span{min-width:0;overflow-wrap:anywhere}
.head{font-size:12px;font-weight:600;color:var(--muted);border-bottom:2px solid var(--line)}
/* Rows off screen are neither laid out nor painted: 10,000 of them stay quick. */
.block{content-visibility:hidden;contain-intrinsic-size:3100px}
.block.near,.block.has-current{content-visibility:visible;contain-intrinsic-size:none}
.finding{cursor:pointer;scroll-margin-top:80px}
.finding:hover,.finding:focus{background:#eef3ff;outline:none}
.finding.open{background:#e3ebff}
.row[hidden],.detail[hidden]{display:none}
.num{color:var(--muted)}
.kind{font-weight:600}
.k-data-race{color:var(--w)}.k-deadlock{color:#8a4b00}.k-failure{color:#6b21a8}.k-read-read-violation{color:var(--muted)}
.conf{justify-self:start;align-self:start;font-size:12px;padding:1px 6px;border-radius:9px;background:var(--bg);border:1px solid var(--line)}
.mono,pre,code{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:12.5px}
.detail{padding:10px 8px 18px;border-bottom:2px solid var(--line);background:#fbfcfe}
.accesses{display:grid;grid-template-columns:repeat(auto-fit,minmax(380px,1fr));gap:14px}
.access{border:1px solid var(--line);border-radius:6px;padding:8px 10px;background:#fff}
.op-write{color:var(--w);font-weight:600}.op-read{color:var(--r);font-weight:600}
ol.stack{margin:4px 0;padding-left:4px;list-style:none}
.frame{color:var(--muted)}
ol.stack li{margin:4px 0}
.fn{font-weight:600}
pre.src{margin:4px 0 6px;padding:4px 0;background:var(--bg);border:1px solid var(--line);border-radius:4px;overflow-x:auto}
pre.src span{display:block;padding:0 8px;white-space:pre}
pre.src span.hl{background:var(--hl)}
.nosrc{color:var(--muted);font-style:italic;font-size:12px}
.meta{color:var(--muted);font-size:12.5px;margin:8px 0 0}
.lanes-row{display:flex;flex-wrap:wrap;gap:18px;margin-top:6px}
.lanes-box{flex:1 1 340px;min-width:300px}
.lanes{display:grid;gap:3px 6px;font-size:12.5px}
.lane-head{font-weight:600;border-bottom:2px solid var(--accent);padding:2px 6px;text-align:center;overflow-wrap:anywhere}
.lanes .empty{border-left:2px solid var(--line);margin-left:50%;min-height:1.6em}
.lanes .step{border:1px solid var(--line);border-radius:4px;padding:2px 6px;background:#fff;overflow-wrap:anywhere}
.lanes .step.first,.lanes .step.second{border:2px solid var(--w);background:#fdecea;font-weight:600}
.lanes .gap{color:var(--muted);font-style:italic;text-align:center;font-size:12px}
#empty{color:var(--muted);padding:20px 0}
footer{color:var(--muted);font-size:12px;padding:10px 20px;border-top:1px solid var(--line)}
</style>
)racepred";

constexpr const char* kBody = R"racepred(<header>
<h1 id="title">racepred report</h1>
<div class="sub" id="subject"></div>
<div id="counts"></div>
</header>
<div id="filters">
<label>Engine<select id="f-engine"><option value="">all</option></select></label>
<label>Kind<select id="f-kind"><option value="">all</option></select></label>
<label>Variable<input id="f-variable" list="l-variable" placeholder="contains"></label>
<label>File<input id="f-file" list="l-file" placeholder="contains"></label>
<label>Text<input id="f-text" type="search" placeholder="search everything"></label>
<datalist id="l-variable"></datalist><datalist id="l-file"></datalist>
<span id="shown"></span>
</div>
<main>
<div id="list"><div class="row head"><span>#</span><span>Kind</span><span>Variable / what</span><span>Engine</span><span>Label</span><span>Where</span><span>Count</span></div>
<div id="rows"></div><div id="spacer"></div></div>
<div id="empty" hidden>No finding matches the filters.</div>
</main>
<footer>Written by <span id="version"></span>. Click a finding for its stacks, source lines and threads.
First screen in <span id="render-ms">?</span> ms, loaded in <span id="load-ms">?</span> ms, every row listed in
<span id="rows-ms">?</span> ms.</footer>
<script>
(function () {
  'use strict';
  var errors = [];
  window.addEventListener('error', function (e) {
    errors.push(String(e.message));
    document.body.setAttribute('data-errors', String(errors.length));
  });
  var holder = document.getElementById('racepred-data');
  var data = JSON.parse(holder.textContent);
  holder.textContent = '';  // one copy in memory: the parsed one
  var F = data.findings || [];
  var S = data.sources || {};
  var $ = function (id) { return document.getElementById(id); };
  // Every name comes from a trace: text nodes only, never markup.
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent, child) { parent.appendChild(child); return child; }
  function str(v) { return v === null || v === undefined ? '' : String(v); }
  function engines(f) { return Array.isArray(f.engines) ? f.engines.map(str) : [str(f.engine)]; }
  function fileOf(loc) { var s = S[loc]; return s ? str(s.file) : ''; }
  function locations(f) {
    var out = [];
    if (f.second_location) out.push(f.second_location);
    if (f.first_location) out.push(f.first_location);
    if (f.location) out.push(f.location);
    (f.cycle || []).forEach(function (s) { if (s.location) out.push(s.location); });
    return out.map(str);
  }
  function what(f) {
    if (f.kind === 'deadlock')
      return 'locks ' + (f.cycle || []).map(function (s) { return str(s.requested); }).join(' \u2192 ');
    if (f.kind === 'failure') return str(f.failure) + (f.message ? ': ' + str(f.message) : '');
    return str(f.variable);
  }
  function ops(f) {
    var a = str(f.access), i = a.indexOf('-');
    return i < 0 ? ['', 'access'] : [a.slice(0, i), a.slice(i + 1)];
  }

  // What the filters look at, per finding; the file and text parts when first asked for.
  var info = F.map(function (f) { return {engines: engines(f), variable: str(f.variable)}; });
  function filesOf(i) {
    var x = info[i];
    if (!x.files) {
      var locs = locations(F[i]);
      x.files = locs.map(fileOf).filter(function (p) { return p; }).concat(locs);
    }
    return x.files;
  }
  function hayOf(i) {
    var x = info[i], f = F[i];
    if (x.hay === undefined)
      x.hay = [f.kind, what(f), x.engines.join(' '), f.confidence, f.fingerprint, f.first_thread,
               f.second_thread, f.thread].concat(locations(f)).map(str).join('\n').toLowerCase();
    return x.hay;
  }

  var state = {engine: '', kind: '', variable: '', file: '', text: ''};
  var KEYS = ['engine', 'kind', 'variable', 'file', 'text'];
  function matches(i) {
    var f = F[i], x = info[i];
    if (state.engine && x.engines.indexOf(state.engine) < 0) return false;
    if (state.kind && f.kind !== state.kind) return false;
    if (state.variable && x.variable.indexOf(state.variable) < 0) return false;
    if (state.file && !filesOf(i).some(function (p) { return p.indexOf(state.file) >= 0; })) return false;
    if (state.text && hayOf(i).indexOf(state.text.toLowerCase()) < 0) return false;
    return true;
  }

  // ---- the list ----
  // One row per finding, in the report's order. The rows of the first screen are built before
  // the page is first shown; the others after the load event, a few milliseconds at a time, so
  // that a report of any size opens at once and answers the user while the rest is listed.
  // Until then a spacer holds the place of the shown rows not built yet.
  //
  // Rows go in blocks of BLOCK. A block far from the screen is neither laid out nor painted
  // (content-visibility: hidden, with the estimated height of its shown rows) until it comes
  // near (an IntersectionObserver): thousands of rows stay quick to lay out, filter and scroll.
  // Not 'content-visibility: auto': with it, a single Tab press makes the browser lay out every
  // block to look for something to focus (seconds, with 10,000 rows).
  var ROW_PX = 31;  // a row's height, for the spacer and the blocks' estimates (measured at load)
  var SCREEN = Math.ceil((window.innerHeight || 1000) / 24) + 10;  // rows built before showing
  var BLOCK = 100;
  var rows = new Array(F.length);  // finding i's row, once built
  var built = 0;                   // rows[0 .. built) are built, in the DOM in that order
  var vis = new Array(F.length);   // whether finding i passes the filters
  var shown = 0, pending = 0;      // findings shown; of them, not built yet
  var blocks = [];
  var body = $('rows'), spacer = $('spacer');
  var near = window.IntersectionObserver ? new IntersectionObserver(function (entries) {
    entries.forEach(function (e) { e.target.classList.toggle('near', e.isIntersecting); });
  }, {rootMargin: '1500px 0px'}) : null;
  // The one row the Tab key reaches (a roving tabindex; the arrow keys move it): Tab goes from
  // the filters to the list, then past it. Its block is always laid out, so it can be focused.
  var current = null;
  // A row's block is shown by a class; bringing the style up to date before focusing or
  // scrolling to the row keeps the browser from laying out a block it still sees hidden.
  function shownNow(tr) { return getComputedStyle(tr.parentNode).contentVisibility; }
  function makeCurrent(tr) {
    if (current === tr) return;
    if (current) {
      current.removeAttribute('tabindex');
      current.parentNode.classList.remove('has-current');
    }
    current = tr;
    if (tr) {
      tr.tabIndex = 0;
      tr.parentNode.classList.add('has-current');
    }
  }
  function row(f, i) {
    var tr = el('div', 'row finding');
    tr.setAttribute('role', 'button');
    tr.setAttribute('aria-expanded', 'false');
    tr.setAttribute('data-i', String(i));
    tr.setAttribute('data-engine', info[i].engines.join(' '));
    tr.setAttribute('data-kind', str(f.kind));
    tr.hidden = !vis[i];
    add(tr, el('span', 'num', i + 1));
    add(tr, el('span', 'kind k-' + str(f.kind), f.kind));
    add(tr, el('span', 'mono', what(f)));
    add(tr, el('span', null, info[i].engines.join(', ')));
    add(tr, el('span', f.confidence ? 'conf' : null, f.confidence || ''));
    var where = locations(f);
    add(tr, el('span', 'mono', where.slice(0, 2).join(' \u2194 ') + (where.length > 2 ? ' \u2026' : '')));
    add(tr, el('span', 'num', f.count === undefined ? '' : f.count));
    return tr;
  }
  // A block's height when it is not laid out: its shown rows' (opened details not counted).
  function estimate(k) {
    var n = 0, end = Math.min(built, (k + 1) * BLOCK);
    for (var i = k * BLOCK; i < end; ++i) if (vis[i]) ++n;
    blocks[k].style.containIntrinsicSize = (n * ROW_PX) + 'px';
  }
  // Builds rows while `more()` says so (and rows are left), appending them in one go.
  function buildWhile(more) {
    if (built >= F.length) return;
    var frag = document.createDocumentFragment();
    var first = blocks.length;
    while (built < F.length && more()) {
      if (built % BLOCK === 0) {
        var b = frag.appendChild(el('div', 'block'));
        blocks.push(b);
        if (near) near.observe(b);
        else b.classList.add('near');
      }
      rows[built] = blocks[blocks.length - 1].appendChild(row(F[built], built));
      if (vis[built]) {
        --pending;
        if (!current) makeCurrent(rows[built]);
        // The blocks of the first screen are laid out at once; the observer decides later.
        if (shown - pending <= SCREEN) rows[built].parentNode.classList.add('near');
      }
      ++built;
    }
    body.appendChild(frag);
    for (var k = Math.max(first - 1, 0); k < blocks.length; ++k) estimate(k);
    spacer.style.height = pending * ROW_PX + 'px';
    if (built === F.length) listed();
  }
  function buildTo(end) { buildWhile(function () { return built < end; }); }
  // Enough rows that the screen is full with the current filters, for at most about 50 ms (a
  // filter that keeps a few findings far down the list leaves them to the slices).
  function fillScreen() {
    var stop = performance.now() + 50, k = 0;
    buildWhile(function () {
      return shown - pending < SCREEN && ((++k & 15) !== 0 || performance.now() < stop);
    });
  }
  // After the load event: the rest, in slices of about 8 ms between which the page is drawn
  // and answers the user.
  function slice() {
    var stop = performance.now() + 8, k = 0;
    buildWhile(function () { return (++k & 15) !== 0 || performance.now() < stop; });
    if (built < F.length) setTimeout(slice, 0);
  }
  function listed() {
    var ms = performance.now();
    $('rows-ms').textContent = ms.toFixed(0);
    document.body.setAttribute('data-rows-ms', ms.toFixed(1));
  }

  // ---- details, built when a finding is opened ----
  function snippet(loc) {
    var s = S[loc];
    if (!s) return el('div', 'nosrc', 'source not found (the location names no file)');
    if (s.omitted) return el('div', 'nosrc', 'source not included (too many locations in this report)');
    if (s.missing) return el('div', 'nosrc', 'source not found: ' + str(s.file) + ':' + str(s.line));
    var pre = el('pre', 'src');
    for (var k = 0; k < s.text.length; ++k) {
      var n = s.start + k;
      var num = String(n);
      while (num.length < 5) num = ' ' + num;
      add(pre, el('span', n === s.line ? 'hl' : '', num + '  ' + s.text[k]));
    }
    return pre;
  }
  function stack(frames, fallback) {
    var ol = el('ol', 'stack');
    if (!Array.isArray(frames) || !frames.length) frames = [{function: '', location: fallback}];
    frames.forEach(function (fr, k) {
      var li = add(ol, el('li'));
      add(li, el('span', 'frame mono', '#' + k + ' '));
      if (fr.function) { add(li, el('span', 'fn mono', fr.function)); li.appendChild(document.createTextNode(' ')); }
      add(li, el('span', 'mono', fr.location));
      add(li, snippet(str(fr.location)));
    });
    return ol;
  }
  function lockList(title, locks) {
    var box = el('div');
    if (!Array.isArray(locks) || !locks.length) return box;
    add(box, el('h4', null, title));
    locks.forEach(function (g) {
      var d = add(box, el('div', 'mono', str(g.lock) + (g.mode === 'read' ? ' (read mode)' : '') +
                          ' held by ' + str(g.thread) +
                          (g.location ? ', acquired at ' + str(g.location) + ' (event ' + str(g.acquired) + ')' : '')));
      if (g.location) add(box, stack(g.stack, str(g.location)));
      return d;
    });
    return box;
  }
  function access(f, which, previous) {
    var box = el('div', 'access');
    var op = ops(f)[which === 'first' ? 0 : 1];
    var h = add(box, el('h3'));
    var word = previous ? 'Previous ' + op : op.charAt(0).toUpperCase() + op.slice(1);
    add(h, el('span', 'op-' + op, word));
    h.appendChild(document.createTextNode(' of ' + str(f.variable) + ' by thread ' + str(f[which + '_thread']) +
                                          ' (event ' + str(f[which]) + ')'));
    add(box, stack(f[which + '_stack'], str(f[which + '_location'])));
    var held = f.locks_held && f.locks_held[which];
    add(box, lockList('Locks held', held));
    ['locks', 'guard_locks'].forEach(function (key) {
      if (f[key] && f[key][which]) add(box, lockList(key === 'locks' ? 'Locks' : 'Cross-thread guard locks', f[key][which]));
    });
    return box;
  }
  // Threads as columns, steps as rows: who ran what, in which order.
  function lanes(title, steps, note) {
    var box = el('div', 'lanes-box');
    add(box, el('h4', null, title));
    var threads = [];
    steps.forEach(function (s) { if (!s.gap && threads.indexOf(s.thread) < 0) threads.push(s.thread); });
    var g = add(box, el('div', 'lanes'));
    g.style.gridTemplateColumns = 'repeat(' + Math.max(threads.length, 1) + ', minmax(8em, 1fr))';
    threads.forEach(function (t) { add(g, el('div', 'lane-head', t)); });
    steps.forEach(function (s) {
      if (s.gap) { add(g, el('div', 'gap', s.text)).style.gridColumn = '1 / -1'; return; }
      var col = threads.indexOf(s.thread);
      for (var j = 0; j < threads.length; ++j)
        add(g, j === col ? el('div', 'step ' + (s.cls || ''), s.text) : el('div', 'empty'));
    });
    if (note) add(box, el('div', 'meta', note));
    return box;
  }
  function raceLanes(f) {
    var row = el('div', 'lanes-row');
    var o = ops(f);
    var steps = [];
    if (f.first !== null && f.first !== undefined) {
      steps.push({thread: str(f.first_thread), cls: 'first', text: o[0] + '(' + str(f.variable) + ') \u00b7 event ' + f.first});
      var between = Number(f.second) - Number(f.first) - 1;
      if (between > 0) steps.push({gap: true, text: '\u2026 ' + between + ' other event' + (between === 1 ? '' : 's') + ' \u2026'});
    }
    steps.push({thread: str(f.second_thread), cls: 'second', text: o[1] + '(' + str(f.variable) + ') \u00b7 event ' + f.second});
    add(row, lanes('Observed order (the recorded run)', steps));
    if (Array.isArray(f.interleaving) && f.interleaving.length) {
      var w = f.interleaving.map(function (s) {
        var cls = s.event === f.first ? 'first' : s.event === f.second ? 'second' : '';
        var op = {w: 'write', r: 'read'}[s.op] || str(s.op);
        return {thread: str(s.thread), cls: cls, text: op + '(' + str(s.target) + ') \u00b7 event ' + str(s.event)};
      });
      var total = f.witness && f.witness.events;
      add(row, lanes('Witness: the reordered run that shows the race', w,
                     (total ? 'The last steps of a checked schedule of ' + total + ' events' : 'The last steps of a checked schedule') +
                     (f.witness && f.witness.notion === 'adjacent' ? ', ending with the two accesses back to back.' : ', after which both accesses are next.')));
    } else {
      add(row, el('div', 'meta', 'No witness (analyze --witness builds one for the races of sound engines).'));
    }
    return row;
  }
  function details(f) {
    var box = el('div');
    if (f.kind === 'data-race' || f.kind === 'read-read-violation') {
      var acc = add(box, el('div', 'accesses'));
      add(acc, access(f, 'second', false));
      if (f.first !== null && f.first !== undefined) add(acc, access(f, 'first', true));
      else add(acc, el('div', 'access nosrc', 'Previous access: not known (the engine reports the later access of each race)'));
      if (Array.isArray(f.threads)) {
        f.threads.forEach(function (t) {
          if (!t.created_at) return;
          add(box, el('h4', null, 'Thread ' + str(t.thread) + ' created by ' + str(t.created_by) + ' at'));
          add(box, stack(t.created_at, ''));
        });
      }
      add(box, el('h4', null, 'Threads'));
      add(box, raceLanes(f));
    } else if (f.kind === 'deadlock') {
      var steps = [];
      (f.cycle || []).forEach(function (s) {
        var held = (s.held || []).map(function (g) { return str(g.lock); }).join(', ');
        steps.push({thread: str(s.thread), cls: 'second',
                    text: (held ? 'holds ' + held + ', ' : '') + 'requests ' + str(s.requested) + ' \u00b7 event ' + str(s.event)});
      });
      add(box, lanes('Threads in the cycle', steps));
      (f.cycle || []).forEach(function (s) {
        add(box, el('h4', null, 'Thread ' + str(s.thread) + ' requests ' + str(s.requested) + ' at'));
        add(box, stack(null, str(s.location)));
        add(box, lockList('Holding', s.held));
      });
    } else {
      add(box, el('h3', null, str(f.failure) + (f.message ? ': ' + str(f.message) : '')));
      if (f.location) {
        add(box, el('div', 'mono', 'thread ' + str(f.thread) + ' at ' + str(f.location)));
        add(box, stack(null, str(f.location)));
      }
      if (f.schedule && f.schedule.replay_file)
        add(box, el('div', 'meta', 'Replay: racepred explore --replay ' + str(f.schedule.replay_file)));
    }
    var meta = [];
    if (f.fingerprint) meta.push('Fingerprint ' + f.fingerprint);
    if (f.count !== undefined) meta.push('found ' + f.count + (f.count === 1 ? ' time' : ' times'));
    if (f.runs !== undefined) meta.push('in ' + f.runs + (f.runs === 1 ? ' run' : ' runs'));
    if (f.first_seen) meta.push('first seen in ' + str(f.first_seen));
    if (f.replay) meta.push('replay: racepred explore --replay ' + str(f.replay));
    add(box, el('div', 'meta', meta.join(' \u00b7 ')));
    return box;
  }
  function detailOf(tr) {
    var next = tr.nextSibling;
    return next && next.className === 'detail' ? next : null;
  }
  function toggle(tr, noHash) {
    var i = Number(tr.getAttribute('data-i'));
    var d = detailOf(tr);
    if (d) {
      d.parentNode.removeChild(d);
      tr.classList.remove('open');
      tr.setAttribute('aria-expanded', 'false');
    } else {
      d = el('div', 'detail');
      d.appendChild(details(F[i]));
      d.hidden = tr.hidden;
      tr.parentNode.insertBefore(d, tr.nextSibling);
      tr.classList.add('open');
      tr.setAttribute('aria-expanded', 'true');
    }
    if (!noHash) writeHash();
  }
  // The next (step 1) or previous (-1) shown finding's row, built if need be.
  function neighbour(i, step) {
    for (var j = i + step; j >= 0 && j < F.length; j += step) {
      if (!vis[j]) continue;
      if (j >= built) buildTo(j + 1);
      return rows[j];
    }
    return null;
  }
  function moveTo(tr) {
    if (!tr) return;
    makeCurrent(tr);
    shownNow(tr);
    tr.focus();
  }
  body.addEventListener('click', function (e) {
    var tr = e.target.closest('.finding');
    if (!tr) return;
    makeCurrent(tr);
    tr.focus({preventScroll: true});
    toggle(tr);
  });
  // Keyboard: Tab reaches the list, Enter or Space opens and closes a finding, the arrows move
  // to the next or previous finding shown, Home and End to the first and last.
  body.addEventListener('keydown', function (e) {
    var tr = e.target;
    if (!tr.classList || !tr.classList.contains('finding')) return;
    var i = Number(tr.getAttribute('data-i'));
    if (e.key === 'Enter' || e.key === ' ') {
      toggle(tr);
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      moveTo(neighbour(i, e.key === 'ArrowDown' ? 1 : -1));
    } else if (e.key === 'Home') {
      moveTo(neighbour(-1, 1));
    } else if (e.key === 'End') {
      moveTo(neighbour(F.length, -1));
    } else {
      return;
    }
    e.preventDefault();
  });

  // ---- filters: controls, the URL fragment (#filter=engine:wcp;file:a.c&open=3,5) ----
  function fill(select, values) {
    values.forEach(function (v) { var o = add(select, el('option', null, v)); o.value = v; });
  }
  function uniq(list) { return Array.from(new Set(list)).sort(); }
  fill($('f-engine'), uniq([].concat.apply([], info.map(function (x) { return x.engines; }))));
  fill($('f-kind'), uniq(F.map(function (f) { return str(f.kind); })));
  // The suggestions of the variable and file boxes: when the box is first used.
  function suggest(id, list, values) {
    var box = $(id);
    box.addEventListener('focus', function once() {
      box.removeEventListener('focus', once);
      uniq(values().filter(Boolean)).slice(0, 500).forEach(function (v) { add($(list), el('option')).value = v; });
    });
  }
  suggest('f-variable', 'l-variable', function () { return info.map(function (x) { return x.variable; }); });
  suggest('f-file', 'l-file', function () {
    return [].concat.apply([], F.map(function (f) { return locations(f).map(fileOf); }));
  });

  function apply() {
    shown = 0;
    pending = 0;
    var changed = false;
    for (var i = 0; i < F.length; ++i) {
      var ok = matches(i);
      if (ok) {
        ++shown;
        if (i >= built) ++pending;
      }
      if (i < built && ok !== vis[i]) {
        changed = true;
        rows[i].hidden = !ok;
        var d = detailOf(rows[i]);
        if (d) d.hidden = !ok;
      }
      vis[i] = ok;
    }
    spacer.style.height = pending * ROW_PX + 'px';
    fillScreen();
    for (var k = 0; k < blocks.length; ++k) {
      estimate(k);
      // Which blocks are near the screen is asked again: under a narrow filter every block
      // was small and near, and would otherwise all be laid out when the filter is cleared.
      if (changed && near) {
        blocks[k].classList.remove('near');
        near.unobserve(blocks[k]);
        near.observe(blocks[k]);
      }
    }
    for (var i = 0, n = 0; i < built && n < SCREEN; ++i) {
      if (vis[i]) {
        rows[i].parentNode.classList.add('near');
        ++n;
      }
    }
    if (!current || current.hidden) {
      var first = 0;
      while (first < built && !vis[first]) ++first;
      makeCurrent(first < built ? rows[first] : null);
    }
    $('shown').textContent = 'showing ' + shown + ' of ' + F.length;
    $('empty').hidden = shown > 0 || F.length === 0;
    document.body.setAttribute('data-shown', String(shown));
  }
  function decode(v) { try { return decodeURIComponent(v); } catch (e) { return v; } }
  function readHash() {
    var open = [];
    KEYS.forEach(function (k) { state[k] = ''; });
    location.hash.replace(/^#/, '').split('&').forEach(function (part) {
      var eq = part.indexOf('=');
      if (eq < 0) return;
      var key = part.slice(0, eq), value = part.slice(eq + 1);
      if (key === 'filter') {
        value.split(';').forEach(function (term) {
          var c = term.indexOf(':');
          var k = c < 0 ? 'text' : decode(term.slice(0, c));
          if (KEYS.indexOf(k) >= 0) state[k] = decode(c < 0 ? term : term.slice(c + 1));
        });
      } else if (key === 'open') {
        open = value.split(',').map(function (n) { return parseInt(n, 10); })
            .filter(function (n) { return n >= 1 && n <= F.length; });
      }
    });
    KEYS.forEach(function (k) { $('f-' + k).value = state[k]; });
    return open;
  }
  // The filters and the opened findings, in the fragment: the view can be linked.
  function writeHash() {
    var terms = KEYS.filter(function (k) { return state[k]; })
        .map(function (k) { return k + ':' + encodeURIComponent(state[k]); });
    var parts = terms.length ? ['filter=' + terms.join(';')] : [];
    var open = [];
    for (var i = 0; i < built; ++i) if (rows[i].classList.contains('open')) open.push(i + 1);
    if (open.length) parts.push('open=' + open.join(','));
    try { history.replaceState(null, '', '#' + parts.join('&')); } catch (e) { /* file: URLs in some browsers */ }
  }
  KEYS.forEach(function (k) {
    $('f-' + k).addEventListener('input', function () { state[k] = $('f-' + k).value; apply(); writeHash(); });
  });
  function fromHash() {
    var open = readHash();
    apply();
    if (open.length) buildTo(Math.max.apply(null, open));
    for (var i = 0; i < built; ++i) {
      if (rows[i].classList.contains('open') !== (open.indexOf(i + 1) >= 0)) toggle(rows[i], true);
    }
    // A link to a finding shows it (Tab then reaches it).
    var target = open.length ? rows[Math.min.apply(null, open) - 1] : null;
    if (target && !target.hidden) {
      makeCurrent(target);
      shownNow(target);
      target.scrollIntoView({block: 'nearest'});
    }
  }
  window.addEventListener('hashchange', fromHash);

  // ---- header ----
  $('title').textContent = 'racepred ' + str(data.command) + ': ' + F.length + (F.length === 1 ? ' finding' : ' findings');
  $('subject').textContent = str(data.subject);
  $('version').textContent = 'racepred ' + str(data.version);
  var byKind = {};
  F.forEach(function (f) { byKind[f.kind] = (byKind[f.kind] || 0) + 1; });
  Object.keys(byKind).sort().forEach(function (k) { add($('counts'), el('span', 'k-' + k, byKind[k] + ' ' + k)); });
  document.body.setAttribute('data-findings', String(F.length));
  fromHash();
  if (!F.length) listed();
  // Times from navigation start (performance.now()), in the footer and on <body> for the test:
  // the first screen built (data-render-ms), first drawn (data-paint-ms), the load event
  // (data-load-ms), every row in the DOM (data-rows-ms).
  var ms = performance.now();
  $('render-ms').textContent = ms.toFixed(0);
  document.body.setAttribute('data-render-ms', ms.toFixed(1));
  try {
    new PerformanceObserver(function (list) {
      list.getEntries().forEach(function (e) {
        if (e.name === 'first-contentful-paint') document.body.setAttribute('data-paint-ms', e.startTime.toFixed(1));
      });
    }).observe({type: 'paint', buffered: true});
  } catch (e) { /* no paint timing in this browser */ }
  window.addEventListener('load', function () {
    var loaded = performance.now();
    $('load-ms').textContent = loaded.toFixed(0);
    document.body.setAttribute('data-load-ms', loaded.toFixed(1));
    // The first shown row is in the first screen, laid out already.
    var first = current && current.getBoundingClientRect().height;
    if (first > 8 && first < 200) {
      ROW_PX = first;
      for (var k = 0; k < blocks.length; ++k) estimate(k);
    }
    if (built < F.length) setTimeout(slice, 0);
  });
})();
</script>
)racepred";

}  // namespace

std::string json_for_script(const ordered_json& doc) {
  const std::string text = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '<') {
      out += "\\u003c";  // only inside strings: JSON has no '<' elsewhere
    } else {
      out += c;
    }
  }
  return out;
}

ordered_json html_data(const std::vector<ordered_json>& findings, std::string_view command,
                       std::string_view subject, SourceLines& sources) {
  std::set<std::string> names;
  for (const ordered_json& f : findings) collect_locations(f, names);
  ordered_json snippets = ordered_json::object();
  size_t read = 0;
  for (const std::string& name : names) {
    const Site site = parse_site(name);
    if (!site.has_file()) continue;
    ordered_json s;
    s["file"] = site.file;
    s["line"] = site.line;
    if (read++ >= kHtmlMaxSnippets) {
      s["omitted"] = true;
    } else if (const std::vector<std::string>* lines = sources.lines(site.file);
               lines && site.line >= 1 && site.line <= lines->size()) {
      const uint32_t first = site.line > kHtmlSnippetContext ? site.line - kHtmlSnippetContext : 1;
      const uint32_t last =
          std::min<uint32_t>(static_cast<uint32_t>(lines->size()), site.line + kHtmlSnippetContext);
      s["start"] = first;
      ordered_json text = ordered_json::array();
      for (uint32_t l = first; l <= last; ++l) {
        const std::string& line = (*lines)[l - 1];
        text.push_back(line.size() > kMaxSnippetLine ? line.substr(0, kMaxSnippetLine) + "…"
                                                     : line);
      }
      s["text"] = std::move(text);
    } else {
      s["missing"] = true;
    }
    snippets[name] = std::move(s);
  }
  ordered_json data;
  data["title"] = "racepred " + std::string(command);
  data["command"] = command;
  data["subject"] = subject;
  data["version"] = RACEPRED_VERSION;
  data["findings"] = findings;
  data["sources"] = std::move(snippets);
  return data;
}

void write_html_report(std::ostream& out, const std::vector<ordered_json>& findings,
                       std::string_view command, std::string_view subject, SourceLines& sources) {
  const ordered_json data = html_data(findings, command, subject, sources);
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      // Nothing is loaded from anywhere: the page works offline and a name that slipped into
      // markup could not fetch or run anything.
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
      << "<title>racepred " << html_escape(command) << ": " << html_escape(subject) << "</title>\n"
      << kStyle << "</head>\n<body>\n"
      << "<script type=\"application/json\" id=\"racepred-data\">" << json_for_script(data)
      << "</script>\n"
      << kBody << "</body>\n</html>\n";
}

}  // namespace racepred
