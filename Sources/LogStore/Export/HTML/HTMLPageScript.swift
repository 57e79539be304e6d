/// The page's one script: reads the JSON blocks, renders the visible rows of the message and
/// task lists (a virtualised list: fixed row height, a spacer, the rows in view), the filters
/// (mirrored in the URL fragment) and the details drawer.
///
/// It builds every node with `createElement` and `textContent`, never `innerHTML`: logged text
/// is never parsed as markup. The page's `Content-Security-Policy` names it by its SHA-256, so
/// edit it freely: the hash follows.
///
/// The script is HTMLPageScript.js beside this file; `source`, its text, is generated from it at
/// build time (the EmbedViewerAssets plugin), so the library needs no resource bundle at run time.
enum HTMLPageScript {}
