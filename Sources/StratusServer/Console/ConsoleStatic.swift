/// The console's stylesheet and script, compiled into the binary and served from
/// `/console/static/`. Pages load nothing else, and the page policy allows no other script.
enum ConsoleStatic {
    static let stylesheet = """
        :root { --ink: #1d2330; --muted: #5b6475; --line: #d9dde5; --bg: #f6f7f9; --accent: #2457c5; --danger: #b3261e; --ok: #1e7b34; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--bg); }
        a { color: var(--accent); }
        header.top { display: flex; flex-wrap: wrap; gap: .75rem 1.5rem; align-items: center; padding: .6rem 1.25rem; background: #fff; border-bottom: 1px solid var(--line); }
        .brand { font-weight: 700; font-size: 1.1rem; text-decoration: none; color: var(--ink); }
        .switcher { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; }
        .switcher label { font-size: .85rem; color: var(--muted); }
        .signout { margin-left: auto; font-size: .85rem; color: var(--muted); }
        select.env-production { border-color: var(--danger); color: var(--danger); font-weight: 600; }
        nav.sections { background: #fff; border-bottom: 1px solid var(--line); overflow-x: auto; }
        nav.sections ul { display: flex; gap: .25rem; margin: 0; padding: 0 1rem; list-style: none; }
        nav.sections a { display: block; padding: .55rem .75rem; text-decoration: none; color: var(--muted); border-bottom: 2px solid transparent; white-space: nowrap; }
        nav.sections a[aria-current=page] { color: var(--ink); border-bottom-color: var(--accent); font-weight: 600; }
        main { max-width: 80rem; margin: 0 auto; padding: 1rem 1.25rem 3rem; }
        h1 { font-size: 1.4rem; margin: .5rem 0 1rem; }
        h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
        .table-wrap { overflow-x: auto; background: #fff; border: 1px solid var(--line); border-radius: 6px; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: .45rem .7rem; border-bottom: 1px solid var(--line); vertical-align: top; }
        th { font-size: .8rem; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); background: #fafbfc; white-space: nowrap; }
        tbody tr:hover { background: #f3f6fd; }
        td .value { white-space: pre-wrap; word-break: break-word; max-width: 28rem; display: inline-block; }
        code, pre { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
        pre { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .75rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
        .empty { background: #fff; border: 1px dashed var(--line); border-radius: 6px; padding: 1.5rem; text-align: center; color: var(--muted); }
        .notice { padding: .6rem .9rem; border-radius: 6px; background: #eaf1ff; }
        .notice.error { background: #fdecea; color: var(--danger); }
        .notice.ok { background: #e7f5ea; color: var(--ok); }
        form.bar { display: flex; flex-wrap: wrap; gap: .5rem .75rem; align-items: flex-end; background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: .75rem; margin-bottom: 1rem; }
        form.bar label, form.stack label { display: flex; flex-direction: column; font-size: .8rem; color: var(--muted); }
        form.stack { display: grid; gap: .6rem; max-width: 36rem; background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 1rem; }
        input, select, textarea, button { font: inherit; }
        input[type=text], input[type=email], input[type=password], select, textarea { padding: .35rem .5rem; border: 1px solid #b9c0cc; border-radius: 4px; background: #fff; color: var(--ink); }
        textarea { width: 100%; min-height: 14rem; }
        button { padding: .4rem .9rem; border-radius: 4px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
        button.secondary { background: #fff; color: var(--accent); }
        button.danger { background: var(--danger); border-color: var(--danger); }
        button.link { background: none; border: 0; color: var(--accent); padding: 0; text-decoration: underline; }
        .filters { display: flex; flex-direction: column; gap: .4rem; }
        .filter { display: flex; flex-wrap: wrap; gap: .4rem; }
        .filters button { align-self: flex-start; }
        dl.fields { display: grid; grid-template-columns: minmax(8rem, 14rem) 1fr; gap: .4rem 1rem; background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 1rem; }
        dl.fields dt { color: var(--muted); font-size: .85rem; word-break: break-all; }
        dl.fields dd { margin: 0; white-space: pre-wrap; word-break: break-word; }
        img.preview { max-width: 100%; max-height: 20rem; border: 1px solid var(--line); border-radius: 4px; background: #fff; }
        .pager { display: flex; gap: 1rem; align-items: center; margin-top: .75rem; }
        .muted { color: var(--muted); }
        .badge { font-size: .75rem; padding: .1rem .4rem; border-radius: 3px; background: #e8ebf0; color: var(--muted); }
        .columns { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
        @media (max-width: 40rem) {
            header.top { padding: .5rem .75rem; }
            .signout { margin-left: 0; }
            main { padding: .75rem; }
            dl.fields, .columns { grid-template-columns: 1fr; }
            form.bar { flex-direction: column; align-items: stretch; }
        }
        svg.chart { width: 100%; height: auto; background: #fff; border: 1px solid var(--line); border-radius: 6px; margin-bottom: .75rem; }
        svg.chart .bar { fill: var(--accent); }
        svg.chart .bar.error { fill: var(--danger); }
        svg.chart .bar.p99 { fill: #e08a1e; }
        svg.chart .grid { stroke: var(--line); }
        svg.chart .axis { font-size: 11px; fill: var(--muted); }
        svg.chart .axis.end, svg.chart .axis.label { text-anchor: end; }
        .legend::before { content: ""; display: inline-block; width: .7rem; height: .7rem; margin-right: .25rem; background: var(--accent); }
        .legend.p99::before { background: #e08a1e; }
        tr.failed td:nth-child(6) { color: var(--danger); font-weight: 600; }
        code.uuid { font-size: 11px; color: var(--muted); }
        form.inline { display: inline; }
        table#log td { white-space: nowrap; }
        """

    /// Progressive enhancement only: every page works without it.
    static let script = """
        "use strict";
        document.addEventListener("DOMContentLoaded", function () {
          // The container and environment switcher reloads on change.
          document.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
            select.addEventListener("change", function () { select.form.submit(); });
          });
          // Destructive forms ask first, with the words the server wrote into data-confirm.
          document.querySelectorAll("form[data-confirm]").forEach(function (form) {
            form.addEventListener("submit", function (event) {
              if (!window.confirm(form.getAttribute("data-confirm"))) { event.preventDefault(); }
            });
          });
          // "Add filter" copies the last filter row with empty values.
          var add = document.getElementById("add-filter");
          if (add) {
            add.hidden = false;
            add.addEventListener("click", function () {
              var rows = document.querySelectorAll(".filter");
              var copy = rows[rows.length - 1].cloneNode(true);
              copy.querySelectorAll("input").forEach(function (input) { input.value = ""; });
              rows[rows.length - 1].after(copy);
            });
          }
          // Logs: the live tail asks every two seconds for rows newer than the newest shown. The
          // rows are markup the server escaped; a response without the id header means the session
          // ended (it is the sign-in page), so the tail stops.
          var log = document.getElementById("log");
          var live = document.getElementById("live-tail");
          if (log && live) {
            var url = log.getAttribute("data-tail");
            var status = document.getElementById("tail-status");
            var poll = function () {
              if (!live.checked) { return; }
              fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } }).then(function (response) {
                var last = response.headers.get("X-Stratus-Last-ID");
                if (!response.ok || last === null) { live.checked = false; status.textContent = "Live tail stopped: reload the page."; return null; }
                url = url.replace(/([?&])after=[0-9]*/, "$1after=" + last);
                return response.text();
              }).then(function (rows) {
                if (!rows) { return; }
                var body = document.getElementById("log-rows");
                body.insertAdjacentHTML("afterbegin", rows);
                log.parentNode.hidden = false;
                var empty = document.querySelector(".empty");
                if (empty) { empty.hidden = true; }
                while (body.rows.length > 500) { body.deleteRow(-1); }
              }).catch(function () { status.textContent = "Live tail: server unreachable, retrying."; });
            };
            window.setInterval(poll, 2000);
          }
        });
        """
}
