import Foundation
import PackagePlugin

/// Embeds the HTML viewer's script and style, kept as `.js` and `.css` files that an editor and a
/// linter can read, into the LogStore module as string constants (EmbedText writes a Swift file).
///
/// Build time rather than resources: the library must work as a bare binary, with no bundle beside it.
@main
struct EmbedViewerAssets: BuildToolPlugin {
    /// The files and the constants they become, paths relative to the target's directory.
    static let assets: [(constant: String, path: String)] = [
        ("HTMLPageScript.source", "Export/HTML/HTMLPageScript.js"),
        ("HTMLPageStyle.css", "Export/HTML/HTMLPageStyle.css"),
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let inputs = Self.assets.map { target.directoryURL.appending(path: $0.path) }
        let output = context.pluginWorkDirectoryURL.appending(path: "HTMLPageAssets.swift")
        let pairs = zip(Self.assets, inputs).map { "\($0.constant)=\($1.path(percentEncoded: false))" }
        return [
            .buildCommand(
                displayName: "Embedding the HTML viewer's script and style in \(target.name)",
                executable: try context.tool(named: "EmbedText").url,
                arguments: [output.path(percentEncoded: false)] + pairs,
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}
