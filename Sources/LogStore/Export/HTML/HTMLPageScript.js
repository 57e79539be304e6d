(function () {
  'use strict';
  var started = performance.now();
  // Every logged string reaches the page through textContent, createTextNode or an attribute
  // set with setAttribute: nothing built here is ever parsed as HTML.
  var LEVELS = ['trace', 'debug', 'info', 'notice', 'warning', 'error', 'critical'];
  var STATES = ['pending', 'success', 'failure'];
  var ROW = 24;
  var OVERSCAN = 12;

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function block(id, fallback) {
    var node = $(id);
    if (!node) return fallback;
    try { return JSON.parse(node.textContent); } catch (error) {
      console.error('LogStore export: the ' + id + ' block does not parse', error);
      return fallback;
    }
  }

  var meta = block('ls-meta', {});
  var messages = block('ls-messages', []);
  var tasks = block('ls-tasks', []);
  var tables = block('ls-tables', {});
  var labels = tables.labels || [];
  var sessions = tables.sessions || [];
  var bodyLimit = meta.bodyLimit || 0;

  // Formatting.
  function pad(value, width) { return String(value).padStart(width || 2, '0'); }
  var withDate = false;
  (function () {
    var first = messages.length ? messages[0][1] : (tasks.length ? tasks[0].t : 0);
    var last = messages.length ? messages[messages.length - 1][1] : (tasks.length ? tasks[tasks.length - 1].t : 0);
    withDate = new Date(first).toDateString() !== new Date(last).toDateString();
    if (withDate) document.body.classList.add('dated');
  })();
  function day(date) { return date.getFullYear() + '-' + pad(date.getMonth() + 1) + '-' + pad(date.getDate()); }
  function clock(ms) {
    var date = new Date(ms);
    if (isNaN(date.getTime())) return '';
    var text = pad(date.getHours()) + ':' + pad(date.getMinutes()) + ':' + pad(date.getSeconds()) + '.' + pad(date.getMilliseconds(), 3);
    return withDate ? day(date) + ' ' + text : text;
  }
  function fullTime(ms) {
    var date = new Date(ms);
    if (isNaN(date.getTime())) return '';
    return day(date) + ' ' + pad(date.getHours()) + ':' + pad(date.getMinutes()) + ':' + pad(date.getSeconds()) + '.' +
      pad(date.getMilliseconds(), 3) + ' local · ' + date.toISOString();
  }
  function size(count) {
    if (count === null || count === undefined) return '';
    if (count < 1024) return count + ' B';
    var units = ['KiB', 'MiB', 'GiB', 'TiB'], value = count / 1024, unit = 0;
    while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
    return (value < 10 ? value.toFixed(1) : String(Math.round(value))) + ' ' + units[unit];
  }
  function seconds(value) {
    if (value === null || value === undefined) return '';
    if (value < 1) return Math.round(value * 1000) + ' ms';
    if (value < 60) return value.toFixed(2) + ' s';
    return Math.floor(value / 60) + ' min ' + Math.round(value % 60) + ' s';
  }
  function count(value) { return Number(value).toLocaleString('en-US'); }
  function sessionName(index) {
    var session = sessions[index];
    if (!session) return '';
    if (!session.app) return session.id;
    return session.app + (session.version ? ' ' + session.version : '') + ' · pid ' + session.pid + ' · ' +
      (session.host || '') + ' · ' + clockDay(session.t);
  }
  function clockDay(ms) { var date = new Date(ms); return day(date) + ' ' + pad(date.getHours()) + ':' + pad(date.getMinutes()); }
  function sessionIndex(id) {
    for (var i = 0; i < sessions.length; i++) if (sessions[i].id === id) return i;
    return -1;
  }
  function pathOf(task) {
    if (!task.u) return '';
    try { var url = new URL(task.u); return url.pathname + url.search; } catch (error) { return task.u; }
  }
  function statusClass(task) {
    if (task.st === 0) return 'pending';
    if (task.st === 2 || (task.sc && task.sc >= 400)) return 'bad';
    if (task.sc && task.sc >= 300) return 'redirect';
    return 'good';
  }

  // State, mirrored in the URL fragment so a filtered view is a link. `levels` is the range of
  // levels shown, [lowest, highest] as indexes into LEVELS, or null for all of them; `order` is
  // 'newest' (the default, as `logstore messages` lists them) or 'oldest'.
  var state = { view: 'messages', levels: null, label: '', session: '', q: '', order: 'newest', failed: false, task: '', message: '' };
  var TOP = LEVELS.length - 1;

  function readFragment() {
    var params = new URLSearchParams(location.hash.replace(/^#/, ''));
    state.view = params.get('view') === 'tasks' ? 'tasks' : 'messages';
    state.levels = parseLevels(params.get('level') || '');
    state.label = params.get('label') || '';
    state.session = params.get('session') || '';
    state.q = params.get('q') || '';
    state.order = params.get('order') === 'oldest' ? 'oldest' : 'newest';
    state.failed = params.get('failed') === '1';
    state.task = (params.get('task') || '').toLowerCase();  // ids print in upper case elsewhere
    state.message = params.get('message') || '';
    if (state.task) state.view = 'tasks';
  }
  // `level=` means what the CLI's --level means: `warning` is warning and above, `info...error`
  // a range. `warning+` is the same as `warning` (the form the docs first printed): in a fragment
  // read as a query, a bare `+` arrives as a space (`%2B` as a `+`), so both are dropped. A list
  // (`warning,error`, as earlier versions of this page wrote) shows from its lowest level up.
  // Anything unreadable filters nothing.
  function levelIndex(name) {
    name = name.trim().toLowerCase().replace(/[+\s]+$/, '');
    if (name === 'warn') name = 'warning';
    return LEVELS.indexOf(name);
  }
  function parseLevels(text) {
    text = text.trim();
    if (!text) return null;
    var range = text.split('...');
    if (range.length === 2) {
      var low = levelIndex(range[0]), high = levelIndex(range[1]);
      return low >= 0 && high >= low ? [low, high] : null;
    }
    var lowest = -1;
    text.split(',').forEach(function (part) {
      var level = levelIndex(part);
      if (level >= 0 && (lowest < 0 || level < lowest)) lowest = level;
    });
    return lowest >= 0 ? [lowest, TOP] : null;
  }
  function levelText(range) {
    if (!range) return '';
    if (range[1] === TOP) return LEVELS[range[0]];
    return LEVELS[range[0]] + '...' + LEVELS[range[1]];
  }
  function isAllLevels(range) { return !range || (range[0] === 0 && range[1] === TOP); }
  function writeFragment() {
    var params = new URLSearchParams();
    if (state.view !== 'messages') params.set('view', state.view);
    if (!isAllLevels(state.levels)) params.set('level', levelText(state.levels));
    if (state.label) params.set('label', state.label);
    if (state.session) params.set('session', state.session);
    if (state.q) params.set('q', state.q);
    if (state.order !== 'newest') params.set('order', state.order);
    if (state.failed) params.set('failed', '1');
    if (state.task) params.set('task', state.task);
    if (state.message) params.set('message', state.message);
    var fragment = params.toString();
    try { history.replaceState(null, '', fragment ? '#' + fragment : location.pathname + location.search); } catch (error) { /* a sandboxed viewer */ }
  }

  // Filtering.
  var lowered = [];
  function matchingMessages() {
    var query = state.q.toLowerCase();
    var label = state.label ? labels.indexOf(state.label) : null;
    var session = state.session ? sessionIndex(state.session) : null;
    var levels = isAllLevels(state.levels) ? null : state.levels;
    var result = [];
    for (var i = 0; i < messages.length; i++) {
      var row = messages[i];
      if (levels && (row[2] < levels[0] || row[2] > levels[1])) continue;
      if (label !== null && row[3] !== label) continue;
      if (session !== null && row[4] !== session) continue;
      if (query) {
        var text = lowered[i];
        if (text === undefined) text = lowered[i] = String(row[5]).toLowerCase();
        if (text.indexOf(query) < 0) continue;
      }
      result.push(i);
    }
    if (state.order === 'newest') result.reverse();
    return result;
  }
  function matchingTasks() {
    var query = state.q.toLowerCase();
    var label = state.label ? labels.indexOf(state.label) : null;
    var session = state.session ? sessionIndex(state.session) : null;
    var result = [];
    for (var i = 0; i < tasks.length; i++) {
      var task = tasks[i];
      if (state.failed && task.st !== 2) continue;
      if (label !== null && task.lb !== label) continue;
      if (session !== null && task.s !== session) continue;
      if (query) {
        var text = ((task.m || '') + ' ' + (task.u || '') + ' ' + (task.sc || '') + ' ' + (task.e || '')).toLowerCase();
        if (text.indexOf(query) < 0) continue;
      }
      result.push(i);
    }
    if (state.order === 'newest') result.reverse();
    return result;
  }

  // A list that renders only the rows in view: a spacer as tall as every row, and the visible
  // window (plus a margin) positioned inside it, rebuilt on scroll.
  function VirtualList(scroller, spacer, render) {
    var items = [], frame = 0, selected = -1;
    function paint() {
      frame = 0;
      var height = scroller.clientHeight || 800;
      var top = scroller.scrollTop;
      var first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
      var last = Math.min(items.length, Math.ceil((top + height) / ROW) + OVERSCAN);
      var fragment = document.createDocumentFragment();
      for (var k = first; k < last; k++) {
        var row = render(items[k]);
        row.style.top = (k * ROW) + 'px';
        if (items[k] === selected) row.classList.add('selected');
        fragment.appendChild(row);
      }
      spacer.replaceChildren(fragment);
    }
    scroller.addEventListener('scroll', function () { if (!frame) frame = requestAnimationFrame(paint); }, { passive: true });
    window.addEventListener('resize', function () { if (!frame) frame = requestAnimationFrame(paint); });
    return {
      set: function (next) {
        items = next;
        spacer.style.height = (items.length * ROW) + 'px';
        scroller.scrollTop = 0;
        paint();
      },
      select: function (item) { selected = item; paint(); },
      reveal: function (item) {
        var position = items.indexOf(item);
        if (position < 0) return;
        var top = position * ROW;
        if (top < scroller.scrollTop || top + ROW > scroller.scrollTop + scroller.clientHeight) {
          scroller.scrollTop = Math.max(0, top - scroller.clientHeight / 3);
        }
        paint();
      },
      get length() { return items.length; }
    };
  }

  function appendHighlighted(parent, text, query) {
    if (!query) { parent.textContent = text; return; }
    var at = text.toLowerCase().indexOf(query);
    if (at < 0) { parent.textContent = text; return; }
    parent.appendChild(document.createTextNode(text.slice(0, at)));
    parent.appendChild(el('mark', null, text.slice(at, at + query.length)));
    parent.appendChild(document.createTextNode(text.slice(at + query.length)));
  }
  function oneLine(text) {
    text = String(text);
    if (text.length > 2000) text = text.slice(0, 2000) + '…';
    return text.replace(/\r?\n/g, ' ⏎ ');
  }

  function messageRow(index) {
    var row = messages[index];
    var level = LEVELS[row[2]] || 'info';
    var node = el('div', 'row lv-' + level);
    node.setAttribute('data-index', String(index));
    node.appendChild(el('span', 'c-time', clock(row[1])));
    node.appendChild(el('span', 'c-level', level));
    var label = el('span', 'c-label', labels[row[3]]);
    label.setAttribute('title', String(labels[row[3]]));
    node.appendChild(label);
    var text = el('span', 'c-text');
    appendHighlighted(text, oneLine(row[5]), state.q.toLowerCase());
    node.appendChild(text);
    if (row[8]) node.appendChild(el('span', 'c-meta', Object.keys(row[8]).length + ' meta'));
    return node;
  }
  function taskRow(index) {
    var task = tasks[index];
    var node = el('div', 'trow st-' + STATES[task.st]);
    node.setAttribute('data-index', String(index));
    node.appendChild(el('span', 'c-time', clock(task.t)));
    node.appendChild(el('span', 'c-method', (task.dr === 'inbound' ? '\u2190 ' : '') + (task.m || '')));
    node.appendChild(el('span', 'c-status ' + statusClass(task), task.sc ? String(task.sc) : (task.st === 0 ? '…' : (task.st === 2 ? 'ERR' : ''))));
    var host = el('span', 'c-host', task.h || '');
    node.appendChild(host);
    var path = el('span', 'c-path');
    appendHighlighted(path, pathOf(task), state.q.toLowerCase());
    path.setAttribute('title', String(task.u || ''));
    node.appendChild(path);
    node.appendChild(el('span', 'c-num', seconds(task.d)));
    node.appendChild(el('span', 'c-num', size(task.r)));
    return node;
  }

  var messageList = VirtualList($('list'), $('spacer'), messageRow);
  var taskList = VirtualList($('tlist'), $('tspacer'), taskRow);

  // The drawer: one message's or one task's details.
  function section(parent, title) {
    var part = el('section', 'part');
    part.appendChild(el('h3', null, title));
    parent.appendChild(part);
    return part;
  }
  function facts(parent, rows) {
    var table = el('table', 'facts');
    rows.forEach(function (pair) {
      if (pair[1] === null || pair[1] === undefined || pair[1] === '') return;
      var line = el('tr');
      line.appendChild(el('th', null, pair[0]));
      var cell = el('td', pair[2] || null, pair[1]);
      line.appendChild(cell);
      table.appendChild(line);
    });
    parent.appendChild(table);
    return table;
  }
  function headers(parent, title, pairs) {
    var part = section(parent, title + (pairs && pairs.length ? ' (' + pairs.length + ')' : ''));
    if (!pairs || !pairs.length) { part.appendChild(el('p', 'muted', 'None.')); return; }
    facts(part, pairs.map(function (pair) { return [pair[0], pair[1], 'mono']; }));
  }
  // JSON rendered as coloured text nodes: keys, strings, numbers and literals in their own spans.
  function jsonTree(value, indent, out) {
    var pad2 = '  '.repeat(indent + 1), padOut = '  '.repeat(indent);
    if (Array.isArray(value)) {
      if (!value.length) { out.appendChild(document.createTextNode('[]')); return; }
      out.appendChild(document.createTextNode('[\n'));
      value.forEach(function (item, i) {
        out.appendChild(document.createTextNode(pad2));
        jsonTree(item, indent + 1, out);
        out.appendChild(document.createTextNode(i < value.length - 1 ? ',\n' : '\n'));
      });
      out.appendChild(document.createTextNode(padOut + ']'));
    } else if (value !== null && typeof value === 'object') {
      var keys = Object.keys(value);
      if (!keys.length) { out.appendChild(document.createTextNode('{}')); return; }
      out.appendChild(document.createTextNode('{\n'));
      keys.forEach(function (key, i) {
        out.appendChild(document.createTextNode(pad2));
        out.appendChild(el('span', 'j-key', JSON.stringify(key)));
        out.appendChild(document.createTextNode(': '));
        jsonTree(value[key], indent + 1, out);
        out.appendChild(document.createTextNode(i < keys.length - 1 ? ',\n' : '\n'));
      });
      out.appendChild(document.createTextNode(padOut + '}'));
    } else if (typeof value === 'string') {
      out.appendChild(el('span', 'j-str', JSON.stringify(value)));
    } else if (typeof value === 'number') {
      out.appendChild(el('span', 'j-num', String(value)));
    } else {
      out.appendChild(el('span', 'j-lit', String(value)));
    }
  }
  function prettyJSON(value) {
    var pre = el('pre', 'code json');
    jsonTree(value, 0, pre);
    return pre;
  }
  // jsonTree recurses once per level: a body of 100k nested arrays (valid JSON, which
  // JSON.parse reads) would overflow the stack, so deeper JSON is shown as its text.
  var JSON_DEPTH_LIMIT = 100;
  function isShallow(value, levelsLeft) {
    if (value === null || typeof value !== 'object') return true;
    if (levelsLeft === 0) return false;
    var items = Array.isArray(value) ? value : Object.keys(value).map(function (key) { return value[key]; });
    return items.every(function (item) { return isShallow(item, levelsLeft - 1); });
  }
  function body(parent, title, item, contentType) {
    var part = section(parent, title);
    if (!item) { part.appendChild(el('p', 'muted', 'None.')); return; }
    if (item.k === 'missing') {
      part.appendChild(el('p', 'note', size(item.n) + ' — ' + item.why + '.'));
    } else if (item.k === 'binary') {
      part.appendChild(el('p', 'note', 'Binary body, ' + size(item.n) + ': not shown.'));
    } else if (item.k === 'image') {
      var formats = { png: 'png', jpeg: 'jpeg', gif: 'gif', webp: 'webp' };
      part.appendChild(el('p', 'muted', String(item.f).toUpperCase() + ' image, ' + item.w + ' × ' + item.h + ', ' + size(item.n)));
      if (formats[item.f] && /^[A-Za-z0-9+\/=]*$/.test(item.v)) {
        var image = el('img', 'preview');
        image.setAttribute('alt', 'response image');
        image.setAttribute('src', 'data:image/' + formats[item.f] + ';base64,' + item.v);
        part.appendChild(image);
      }
    } else {
      var text = String(item.v);
      var parsed, isJSON = false;
      if (!item.cut && /^\s*[\[{]/.test(text)) {
        try { parsed = JSON.parse(text); isJSON = true; } catch (error) { isJSON = false; }
      }
      part.appendChild(el('p', 'muted', (isJSON ? 'JSON' : (contentType || 'Text')) + ', ' + size(item.n)));
      if (item.cut) part.appendChild(el('p', 'note', 'Cut: showing the first ' + size(bodyLimit) + ' of ' + size(item.n) + ' (the page embeds at most ' + size(bodyLimit) + ' of each body; export an archive for the whole body).'));
      part.appendChild(isJSON && isShallow(parsed, JSON_DEPTH_LIMIT) ? prettyJSON(parsed) : el('pre', 'code', text));
    }
  }
  // As `logstore task` writes them: one decimal under 100 ms, whole milliseconds above.
  function milliseconds(value) {
    return value < 100 ? value.toFixed(1) + ' ms' : count(Math.round(value)) + ' ms';
  }
  // Each phase is [name, start ms, end ms or null (began, never finished), note]: the export
  // computes them as the CLI does, so a request that got no response shows its waiting phase
  // up to the task's end, with the note "no response".
  function waterfall(parent, transactions) {
    if (!transactions || !transactions.length) return;
    var part = section(parent, 'Timings');
    var start = Infinity, end = -Infinity;
    transactions.forEach(function (t) {
      t.ph.forEach(function (p) { start = Math.min(start, p[1]); end = Math.max(end, p[2] === null ? p[1] : p[2]); });
    });
    var span = Math.max(end - start, 0.001);
    transactions.forEach(function (t, number) {
      var head = el('div', 'tx-head', '#' + (number + 1) + ' ' + (t.m || '') + ' ' + (t.u || '') + (t.sc ? ' → ' + t.sc : '') + ' · ' + t.ft);
      part.appendChild(head);
      var bars = el('div', 'bars');
      t.ph.forEach(function (p) {
        var open = p[2] === null, note = p[3] || '';
        var line = el('div', 'bar-line' + (note ? ' no-response' : '') + (open ? ' unfinished' : ''));
        line.setAttribute('data-phase', String(p[0]));
        line.appendChild(el('span', 'bar-name', p[0]));
        var track = el('span', 'bar-track');
        var bar = el('span', 'bar ph-' + String(p[0]).toLowerCase());
        var finish = open ? end : p[2];
        bar.style.left = ((p[1] - start) / span * 100) + '%';
        bar.style.width = Math.max((finish - p[1]) / span * 100, 0.4) + '%';
        track.appendChild(bar);
        line.appendChild(track);
        line.appendChild(el('span', 'bar-ms', open ? 'never finished' : milliseconds(p[2] - p[1]) + (note ? ', ' + note : '')));
        bars.appendChild(line);
      });
      part.appendChild(bars);
      facts(part, [
        ['Protocol', t.pr], ['Remote', t.ra], ['Local', t.la], ['TLS', t.tls ? t.tls + (t.cs ? ' · ' + t.cs : '') : null],
        ['Connection', (t.reused ? 'reused' : 'new') + (t.proxy ? ' · via proxy' : '')],
        ['Bytes', 'request ' + size(t.b[0]) + ' + ' + size(t.b[1]) + ' · response ' + size(t.b[2]) + ' + ' + size(t.b[3])]
      ]);
    });
  }

  function openDrawer(title, fill) {
    var drawer = $('drawer'), content = $('drawer-body');
    $('drawer-title').textContent = title;
    content.replaceChildren();
    fill(content);
    drawer.hidden = false;
    content.scrollTop = 0;
  }
  function closeDrawer() {
    $('drawer').hidden = true;
    state.task = '';
    state.message = '';
    messageList.select(-1);
    taskList.select(-1);
    writeFragment();
  }
  function showMessage(index) {
    var row = messages[index];
    if (!row) return;
    state.message = String(row[0]);
    state.task = '';
    messageList.select(index);
    openDrawer('Message #' + row[0], function (content) {
      var level = LEVELS[row[2]] || 'info';
      var badge = el('span', 'pill lv-' + level, level);
      content.appendChild(badge);
      content.appendChild(el('pre', 'code message-text', row[5]));
      facts(content, [
        ['Time', fullTime(row[1])], ['Label', labels[row[3]]], ['Session', sessionName(row[4])],
        ['Source', row[6], 'mono'], ['Thread', row[7], 'mono']
      ]);
      if (row[8]) {
        var part = section(content, 'Metadata');
        part.appendChild(prettyJSON(row[8]));
      }
    });
  }
  function showTask(index) {
    var task = tasks[index];
    if (!task) return;
    state.task = task.id;
    state.message = '';
    taskList.select(index);
    var x = task.x || {};
    openDrawer((task.m || '') + ' ' + (pathOf(task) || task.u || ''), function (content) {
      var summary = el('div', 'task-summary');
      summary.appendChild(el('span', 'pill status ' + statusClass(task), task.sc ? String(task.sc) : STATES[task.st]));
      summary.appendChild(el('span', 'url mono', task.u || ''));
      content.appendChild(summary);
      facts(content, [
        ['State', STATES[task.st]], ['Error', task.e, 'bad-text'], ['Started', fullTime(task.t)],
        ['Duration', seconds(task.d)], ['Type', task.ty], ['Direction', task.dr], ['Request body', size(task.q)], ['Response body', size(task.r)],
        ['Content type', task.ct, 'mono'], ['Label', labels[task.lb]], ['Session', sessionName(task.s)],
        ['Description', x.ds], ['Decoding error', x.de, 'bad-text'], ['Task id', task.id, 'mono']
      ]);
      headers(content, 'Request headers', x.qh);
      body(content, 'Request body', x.qb, null);
      headers(content, 'Response headers', x.rh);
      body(content, 'Response body', x.rb, task.ct);
      waterfall(content, x.tx);
      if (x.md && x.md.length) { var extra = section(content, 'Metadata'); facts(extra, x.md); }
      if (x.bad && x.bad.length) {
        var bad = section(content, 'Stored parts that did not decode');
        x.bad.forEach(function (pair) { bad.appendChild(el('h4', null, pair[0])); bad.appendChild(el('pre', 'code', pair[1])); });
      }
    });
  }

  // Filter bar.
  var levelCounts = LEVELS.map(function () { return 0; });
  messages.forEach(function (row) { if (levelCounts[row[2]] !== undefined) levelCounts[row[2]] += 1; });
  var chips = $('levels');
  LEVELS.forEach(function (name, level) {
    var chip = el('button', 'chip lv-' + name);
    chip.type = 'button';
    chip.setAttribute('data-level', String(level));
    chip.appendChild(el('span', 'dot'));
    chip.appendChild(el('span', null, name));
    chip.appendChild(el('span', 'chip-count', count(levelCounts[level])));
    chip.setAttribute('title', 'Show ' + name + ' and above (click again: every level) · Shift-click: ' + name + ' only');
    // A click picks the lowest level shown, as --level does; shift-click shows one level.
    chip.addEventListener('click', function (event) {
      var only = event.shiftKey || event.metaKey || event.ctrlKey;
      var next = only ? [level, level] : [level, TOP];
      var same = state.levels && state.levels[0] === next[0] && state.levels[1] === next[1];
      state.levels = same ? null : next;
      refresh();
    });
    chips.appendChild(chip);
  });
  function fillSelect(select, entries) {
    entries.forEach(function (entry) {
      var option = el('option', null, entry[1]);
      option.value = entry[0];
      select.appendChild(option);
    });
  }
  fillSelect($('label'), labels.map(function (label) { return [label, label]; }).sort(function (a, b) { return a[0] < b[0] ? -1 : 1; }));
  fillSelect($('session'), sessions.map(function (session, index) { return [session.id, sessionName(index)]; }));

  var typing = 0;
  $('q').addEventListener('input', function () {
    clearTimeout(typing);
    typing = setTimeout(function () { state.q = $('q').value; refresh(); }, messages.length > 20000 ? 160 : 40);
  });
  $('label').addEventListener('change', function () { state.label = $('label').value; refresh(); });
  $('session').addEventListener('change', function () { state.session = $('session').value; refresh(); });
  $('order').addEventListener('click', function () { state.order = state.order === 'newest' ? 'oldest' : 'newest'; refresh(); });
  $('failed').addEventListener('change', function () { state.failed = $('failed').checked; refresh(); });
  $('reset').addEventListener('click', function () {
    state.levels = null; state.label = ''; state.session = ''; state.q = ''; state.failed = false;
    refresh();
  });
  $('tab-messages').addEventListener('click', function () { state.view = 'messages'; refresh(); });
  $('tab-tasks').addEventListener('click', function () { state.view = 'tasks'; refresh(); });
  $('close').addEventListener('click', closeDrawer);
  $('list').addEventListener('click', function (event) {
    var row = event.target.closest('.row');
    if (row) { showMessage(Number(row.getAttribute('data-index'))); writeFragment(); }
  });
  $('tlist').addEventListener('click', function (event) {
    var row = event.target.closest('.trow');
    if (row) { showTask(Number(row.getAttribute('data-index'))); writeFragment(); }
  });
  document.addEventListener('keydown', function (event) {
    if (event.key === 'Escape' && !$('drawer').hidden) { closeDrawer(); return; }
    if (event.key === '/' && document.activeElement !== $('q')) { event.preventDefault(); $('q').focus(); }
  });
  window.addEventListener('hashchange', function () { readFragment(); refresh(true); });

  function syncControls() {
    if ($('q').value !== state.q) $('q').value = state.q;
    $('label').value = state.label;
    if ($('label').value !== state.label) $('label').value = '';
    $('session').value = state.session;
    if ($('session').value !== state.session) $('session').value = '';
    $('failed').checked = state.failed;
    // The button says the order in force, and its title what a click does.
    var other = state.order === 'newest' ? 'oldest' : 'newest';
    $('order').textContent = 'Sorted: ' + state.order + ' first \u21c5';
    $('order').setAttribute('title', 'Sorted ' + state.order + ' first; click to sort ' + other + ' first');
    $('order').setAttribute('aria-label', 'Sorted ' + state.order + ' first; sort ' + other + ' first');
    Array.prototype.forEach.call(chips.children, function (chip) {
      var level = Number(chip.getAttribute('data-level'));
      var on = !isAllLevels(state.levels) && level >= state.levels[0] && level <= state.levels[1];
      chip.classList.toggle('on', on);
      chip.setAttribute('aria-pressed', on ? 'true' : 'false');
    });
    chips.classList.toggle('some', !isAllLevels(state.levels));
    var messagesView = state.view === 'messages';
    $('tab-messages').classList.toggle('active', messagesView);
    $('tab-tasks').classList.toggle('active', !messagesView);
    $('messages-view').hidden = !messagesView;
    $('tasks-view').hidden = messagesView;
    chips.hidden = !messagesView;
    $('failed-box').hidden = messagesView;
  }

  function refresh(fromFragment) {
    syncControls();
    var shown;
    if (state.view === 'messages') {
      var matching = matchingMessages();
      messageList.set(matching);
      shown = count(matching.length) + ' of ' + count(messages.length) + ' messages';
      $('empty').hidden = matching.length > 0;
    } else {
      var found = matchingTasks();
      taskList.set(found);
      shown = count(found.length) + ' of ' + count(tasks.length) + ' requests';
      $('empty').hidden = found.length > 0;
    }
    $('shown').textContent = shown;
    if (state.task) {
      var taskIndex = -1;
      for (var i = 0; i < tasks.length; i++) if (tasks[i].id === state.task) { taskIndex = i; break; }
      if (taskIndex >= 0) { showTask(taskIndex); taskList.reveal(taskIndex); } else { $('drawer').hidden = true; }
    } else if (state.message) {
      var messageIndex = -1;
      for (var j = 0; j < messages.length; j++) if (String(messages[j][0]) === state.message) { messageIndex = j; break; }
      if (messageIndex >= 0) { showMessage(messageIndex); messageList.reveal(messageIndex); } else { $('drawer').hidden = true; }
    } else {
      $('drawer').hidden = true;
    }
    if (!fromFragment) writeFragment();
  }

  $('count-messages').textContent = count(messages.length);
  $('count-tasks').textContent = count(tasks.length);
  $('summary').textContent = count(messages.length) + ' messages · ' + count(tasks.length) + ' requests · ' +
    count(sessions.length) + (sessions.length === 1 ? ' session' : ' sessions') +
    (meta.exportedAt ? ' · exported ' + clockDay(meta.exportedAt) : '');
  $('body-note').textContent = 'Bodies are embedded up to ' + size(bodyLimit) + ' each. Times are local. LogStore ' + (meta.library || '');
  document.title = 'LogStore export · ' + count(messages.length) + ' messages';
  readFragment();
  refresh(true);
  document.documentElement.setAttribute('data-ready', 'true');
  // How long reading the data and the first render took, for anyone checking a large export.
  document.documentElement.setAttribute('data-ready-ms', String(Math.round(performance.now() - started)));
})();
