// The sample's page: lists the demos with their code, polls this instance's lock timeline, its held leases and its
// health, and draws them. Plain JavaScript, no build step. Every time the page computes with comes from
// /page/timeline as epoch milliseconds (a number, with a fraction for lock calls): the page parses no date strings,
// since JavaScript defines Date.parse only for millisecond precision and the server's instants carry nanoseconds.
(function () {
  'use strict';

  var SVG = 'http://www.w3.org/2000/svg';
  var MAX_CALLS = 60;          // rows drawn at most, the newest
  var LABEL_WIDTH = 330;
  var ROW = 20;
  var PALETTE = ['#3d7dd8', '#2a9d5b', '#8e5bd0', '#c2571a', '#1a8ca8', '#b8336a'];
  var colours = {};
  var lastTimeline = null;
  var demos = [];              // from /page/demos: path, title, description, code
  var posting = {};            // demo path -> true while its POST is under way or its run is not yet polled

  function $(id) { return document.getElementById(id); }

  function el(name, attrs, text) {
    var node = document.createElementNS(SVG, name);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function colour(instance) {
    if (!(instance in colours)) {
      colours[instance] = PALETTE[Object.keys(colours).length % PALETTE.length];
    }
    return colours[instance];
  }

  function getJson(url) {
    return fetch(url, { headers: { Accept: 'application/json' } }).then(function (response) {
      return response.json();
    });
  }

  // ------------------------------------------------------------------ timeline
  function heldUntil(call) {
    return call.workEndedAt != null ? call.workEndedAt : call.releasedAt;
  }

  function endOf(call, now) {
    var ends = [call.requestedAt, call.acquiredAt, call.workEndedAt, call.releasedAt, call.lostAt]
      .filter(function (t) { return t != null; });
    var open = call.state === 'WAITING' || call.state === 'HELD';
    return open ? Math.max(now, Math.max.apply(null, ends)) : Math.max.apply(null, ends);
  }

  // the calls to draw: those still going on or ended after the start of the view ('run': this page's last demo)
  function since(runs, now) {
    var view = $('view').value;
    if (view === 'run' && runs.length) { return runs[0].startedAt - 200; }
    return now - (view === '120' ? 120000 : 30000);
  }

  function label(call) {
    var text = call.key + ' · ' + call.type.toLowerCase() + ' · ' + call.instance + ' / ' + call.thread;
    return text.length > 54 ? text.slice(0, 53) + '…' : text;
  }

  function drawTimeline(calls, runs) {
    var svg = $('timeline');
    var now = Date.now();
    var from = since(runs, now);
    var shown = calls.filter(function (c) { return endOf(c, now) >= from; }).slice(-MAX_CALLS);
    while (svg.firstChild) { svg.removeChild(svg.firstChild); }
    var width = Math.max(700, $('timeline-box').clientWidth - 4);
    var height = 30 + shown.length * ROW + 10;
    svg.setAttribute('height', height);
    svg.setAttribute('width', width);
    if (!shown.length) {
      svg.appendChild(el('text', { x: 8, y: 22, fill: '#777' }, 'No lock calls in this view: press a button.'));
      return;
    }
    var t0 = Math.min.apply(null, shown.map(function (c) { return c.requestedAt; }));
    var t1 = Math.max.apply(null, shown.map(function (c) { return endOf(c, now); }));
    var span = Math.max(t1 - t0, 10);
    var plot = width - LABEL_WIDTH - 60;
    function x(t) { return LABEL_WIDTH + (t - t0) / span * plot; }

    // axis: time since the first call shown
    var step = niceStep(span / 8);
    for (var tick = 0; tick <= span; tick += step) {
      svg.appendChild(el('line', { x1: x(t0 + tick), x2: x(t0 + tick), y1: 18, y2: height - 6, stroke: '#eee' }));
      svg.appendChild(el('text', { x: x(t0 + tick) + 2, y: 12, fill: '#999' }, formatMs(tick)));
    }

    shown.forEach(function (call, i) {
      var y = 26 + i * ROW;
      var end = heldUntil(call);
      var g = el('g', {
        'class': 'call state-' + call.state,
        'data-id': call.id, 'data-key': call.key, 'data-type': call.type, 'data-instance': call.instance,
        'data-thread': call.thread, 'data-state': call.state, 'data-token': call.fencingToken,
        'data-requested': call.requestedAt,
        'data-acquired': call.acquiredAt == null ? '' : call.acquiredAt,
        'data-held-until': end == null ? '' : end
      });
      g.appendChild(el('text', { x: 4, y: y + 12 }, label(call)));
      var waitEnd = call.acquiredAt != null ? call.acquiredAt : (call.releasedAt != null ? call.releasedAt : now);
      g.appendChild(el('rect', { x: x(call.requestedAt), y: y + 5, width: Math.max(1, x(waitEnd) - x(call.requestedAt)),
        height: 8, fill: call.acquiredAt == null && call.state !== 'WAITING' ? '#e8a33d' : '#d9d9d9' }));
      if (call.acquiredAt != null) {
        var holdEnd = end != null ? end : now;
        var bar = el('rect', { 'class': 'hold', x: x(call.acquiredAt), y: y + 1,
          width: Math.max(2, x(holdEnd) - x(call.acquiredAt)), height: 16, fill: colour(call.instance) });
        bar.appendChild(el('title', {}, 'token ' + call.fencingToken + ', held '
          + formatMs(holdEnd - call.acquiredAt) + ', waited ' + formatMs(call.acquiredAt - call.requestedAt)));
        g.appendChild(bar);
        var inside = x(holdEnd) - x(call.acquiredAt) > 8 + 7 * String(call.fencingToken).length;
        var after = call.releasedAt != null ? Math.max(holdEnd, call.releasedAt) : holdEnd;
        g.appendChild(el('text', { x: inside ? x(call.acquiredAt) + 3 : x(after) + 3, y: y + 13,
          fill: inside ? '#fff' : '#222', 'font-weight': 600 }, '#' + call.fencingToken));
        if (call.workEndedAt != null && call.releasedAt != null) {
          g.appendChild(el('rect', { x: x(call.workEndedAt), y: y + 7, height: 4, fill: '#9bbbe8',
            width: Math.max(1, x(call.releasedAt) - x(call.workEndedAt)) }));
        }
      }
      if (call.lostAt != null) {
        g.appendChild(el('rect', { x: x(call.lostAt) - 1, y: y, width: 3, height: 18, fill: '#d33' }));
      }
      var note = { SKIPPED: 'skipped', TIMED_OUT: 'timed out', FAILED: 'failed', WAITING: 'waiting…' }[call.state];
      if (call.lostAt != null) { note = 'lease lost'; }
      if (note) {
        var noteX = x(endOf(call, now)) + (call.acquiredAt != null ? 40 : 4);
        g.appendChild(el('text', { x: noteX, y: y + 12, fill: '#a33' }, note));
      }
      if (call.detail) { g.appendChild(el('title', {}, call.detail)); }
      svg.appendChild(g);
    });
  }

  function niceStep(raw) {
    var power = Math.pow(10, Math.floor(Math.log10(raw)));
    var steps = [1, 2, 5, 10];
    for (var i = 0; i < steps.length; i++) {
      if (steps[i] * power >= raw) { return steps[i] * power; }
    }
    return 10 * power;
  }

  function formatMs(ms) {
    if (ms >= 1000) { return (ms / 1000).toFixed(ms >= 10000 ? 0 : 1) + ' s'; }
    return (ms < 10 ? ms.toFixed(1) : Math.round(ms)) + ' ms';
  }

  function drawRuns(runs) {
    var list = $('runs');
    list.innerHTML = '';
    runs.forEach(function (run) {
      var item = document.createElement('li');
      item.className = run.finishedAt == null ? 'running' : (run.failed ? 'failed' : 'done');
      item.setAttribute('data-demo', run.demo);
      item.textContent = new Date(run.startedAt).toLocaleTimeString() + '  ' + pathOf(run.demo)
        + ': ' + (run.summary == null ? 'running… ' + formatMs(Date.now() - run.startedAt) : run.summary);
      list.appendChild(item);
    });
  }

  function pollTimeline() {
    getJson('page/timeline').then(function (data) {
      $('instance').textContent = data.instance;
      document.title = 'distlock sample · ' + data.instance;
      lastTimeline = data;
      drawTimeline(data.calls, data.runs);
      drawRuns(data.runs);
      drawDemoStates(data.runs);
      drawLeases(data.leases);
    }).catch(function () { /* the next poll tries again */ }).then(function () {
      setTimeout(pollTimeline, 500);
    });
  }

  // ------------------------------------------------------------------ leases, backend, leader and health
  function drawLeases(leases) {
    var body = $('leases').querySelector('tbody');
    body.innerHTML = '';
    var now = Date.now();
    if (!leases.length) {
      body.innerHTML = '<tr><td colspan="8" class="muted">none</td></tr>';
    }
    leases.forEach(function (lease) {
      var row = document.createElement('tr');
      [lease.key, lease.type, lease.fencingToken, lease.holderThread,
        formatMs(now - lease.acquiredAt), formatMs(lease.expiresAt - now),
        lease.watchdog ? 'yes' : 'no', lease.valid ? 'yes' : 'lost'].forEach(function (value) {
        var cell = document.createElement('td');
        cell.textContent = value;
        row.appendChild(cell);
      });
      body.appendChild(row);
    });
  }

  function drawBackend(locks) {
    var names = Object.keys(locks.providers);
    var main = names.filter(function (name) { return locks.providers[name].defaultProvider; })[0] || names[0];
    $('backend-name').textContent = names.map(function (name) {
      return name + (names.length > 1 && name === main ? ' (default)' : '');
    }).join(', ');
    var status = main ? locks.providers[main].status : '?';
    $('backend-status').textContent = status;
    $('backend-status').className = 'pill ' + status;
    $('backend-status').title = main && locks.providers[main].error ? locks.providers[main].error : '';
  }

  function drawLeader(leader) {
    var pill = $('leader-status');
    pill.textContent = leader.leader ? 'this instance (term ' + leader.fencingToken + ')' : 'another instance';
    pill.className = 'pill ' + (leader.leader ? 'UP' : '');
    pill.title = 'group ' + leader.group + ', candidate ' + leader.candidateId;
  }

  function pollStatus() {
    Promise.all([
      getJson('actuator/distlockLocks').then(drawBackend),
      getJson('actuator/distlockLeader').then(drawLeader, function () { $('leader-status').textContent = 'off'; }),
      getJson('actuator/health').then(function (health) {
        $('health-status').textContent = health.status;
        $('health-status').className = 'pill ' + health.status;
      })
    ]).catch(function () { /* the next poll tries again */ }).then(function () {
      setTimeout(pollStatus, 1500);
    });
  }

  // ------------------------------------------------------------------ demos: text, button, outcome, code
  function pathOf(demoName) { return demoName.toLowerCase().replace(/_/g, '-'); }

  function drawDemos() {
    var box = $('demos');
    box.innerHTML = '';
    demos.forEach(function (demo) {
      var card = document.createElement('div');
      card.className = 'demo';
      card.id = 'card-' + demo.path;
      var title = document.createElement('h3');
      title.textContent = demo.title;
      var text = document.createElement('p');
      text.className = 'description';
      text.textContent = demo.description;
      var button = document.createElement('button');
      button.id = 'demo-' + demo.path;
      button.setAttribute('data-demo', demo.path);
      button.textContent = 'Run';
      button.addEventListener('click', function () { start(demo.path); });
      var status = document.createElement('span');
      status.id = 'status-' + demo.path;
      status.className = 'status';
      var details = document.createElement('details');
      details.className = 'code';
      var summary = document.createElement('summary');
      summary.textContent = 'The code it runs';
      details.appendChild(summary);
      demo.code.forEach(function (snippet) {
        var file = document.createElement('div');
        file.className = 'file';
        file.textContent = snippet.file;
        var pre = document.createElement('pre');
        var code = document.createElement('code');
        code.textContent = snippet.text;
        pre.appendChild(code);
        details.appendChild(file);
        details.appendChild(pre);
      });
      [title, text, button, status, details].forEach(function (node) { card.appendChild(node); });
      box.appendChild(card);
    });
    if (lastTimeline) { drawDemoStates(lastTimeline.runs); }
  }

  // a button is disabled while its POST is under way and while the demo's latest run has not finished
  function drawDemoStates(runs) {
    demos.forEach(function (demo) {
      var button = $('demo-' + demo.path);
      var status = $('status-' + demo.path);
      if (!button) { return; }
      var latest = runs.filter(function (run) { return pathOf(run.demo) === demo.path; })[0];
      if (posting[demo.path] && latest && latest.id >= posting[demo.path]) { delete posting[demo.path]; }
      var running = posting[demo.path] || (latest && latest.finishedAt == null);
      button.disabled = !!running;
      button.textContent = running ? 'Running…' : 'Run';
      button.className = running ? 'running' : '';
      if (running) {
        status.className = 'status running';
        status.textContent = latest && latest.finishedAt == null
          ? 'running for ' + formatMs(Date.now() - latest.startedAt) + '…' : 'starting…';
      }
      else if (latest) {
        status.className = 'status ' + (latest.failed ? 'failed' : 'done');
        status.textContent = (latest.failed ? 'failed after ' : 'done in ')
          + formatMs(latest.finishedAt - latest.startedAt) + ': ' + latest.summary;
      }
    });
  }

  function start(path) {
    if (posting[path]) { return; }
    posting[path] = Infinity;     // until the POST answers with the run's id
    drawDemoStates(lastTimeline ? lastTimeline.runs : []);
    fetch('page/demos/' + path, { method: 'POST' }).then(function (response) {
      return response.json().then(function (body) {
        if (response.status === 202) {
          posting[path] = body.id; // cleared once a poll lists this run
        }
        else {
          delete posting[path];
          $('status-' + path).textContent = (response.status === 409 ? 'still running: ' : 'not started: ')
            + (body.detail || response.status);
        }
      });
    }).catch(function () {
      delete posting[path];
      $('status-' + path).textContent = 'not started: the instance did not answer';
    });
  }

  $('view').addEventListener('change', function () {
    if (lastTimeline) { drawTimeline(lastTimeline.calls, lastTimeline.runs); }
  });

  getJson('page/demos').then(function (list) { demos = list; drawDemos(); });
  pollTimeline();
  pollStatus();
})();
