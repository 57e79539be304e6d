/// The page's fixed markup: the header, the filter bar, the two lists and the drawer, all
/// empty: the script fills them from the data blocks. Holds no logged text.
enum HTMLPageMarkup {
    static let body = #"""
    <div id="app">
    <header class="top">
    <div class="brand"><span class="logo" aria-hidden="true"></span><span class="name">LogStore</span><span id="summary" class="muted"></span></div>
    <nav class="tabs" aria-label="Views">
    <button type="button" id="tab-messages" class="tab active">Messages <span class="badge" id="count-messages"></span></button>
    <button type="button" id="tab-tasks" class="tab">Network <span class="badge" id="count-tasks"></span></button>
    </nav>
    </header>
    <div class="filters" role="search">
    <div class="frow">
    <input id="q" type="search" placeholder="Filter text (press /)" autocomplete="off" spellcheck="false" aria-label="Filter text">
    <select id="label" aria-label="Label"><option value="">All labels</option></select>
    <select id="session" aria-label="Session"><option value="">All sessions</option></select>
    <button type="button" id="order" class="ghost">Sorted: newest first ⇅</button>
    <button type="button" id="reset" class="ghost">Reset</button>
    </div>
    <div class="frow">
    <div id="levels" class="levels" aria-label="Levels"></div>
    <label class="check" id="failed-box" hidden><input type="checkbox" id="failed"> Failed only</label>
    <span id="shown" class="shown"></span>
    </div>
    </div>
    <main>
    <div id="messages-view" class="view">
    <div class="thead mhead"><span>Time</span><span>Level</span><span>Label</span><span>Message</span></div>
    <div id="list" class="list"><div id="spacer" class="spacer"></div></div>
    </div>
    <div id="tasks-view" class="view" hidden>
    <div class="thead theadt"><span>Time</span><span>Method</span><span>Status</span><span>Host</span><span>Path</span><span class="c-num">Duration</span><span class="c-num">Size</span></div>
    <div id="tlist" class="list"><div id="tspacer" class="spacer"></div></div>
    </div>
    <p id="empty" class="empty" hidden>Nothing matches these filters.</p>
    </main>
    <footer id="body-note" class="foot"></footer>
    <aside id="drawer" class="drawer" hidden aria-live="polite">
    <div class="drawer-head"><h2 id="drawer-title"></h2><button type="button" id="close" class="ghost" aria-label="Close">✕</button></div>
    <div id="drawer-body" class="drawer-body"></div>
    </aside>
    <noscript><p class="empty">This page shows its logs with JavaScript, which is turned off.</p></noscript>
    </div>
    """#
}
