/// The page's style sheet: light and dark themes, level colours, monospace rows, a sticky
/// filter bar.
///
/// The style sheet is HTMLPageStyle.css beside this file; `css`, its text, is generated from it at
/// build time (the EmbedViewerAssets plugin), so the library needs no resource bundle at run time.
enum HTMLPageStyle {}
