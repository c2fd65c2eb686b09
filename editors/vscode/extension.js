// Starts `sprague lsp` for .game files.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("sprague").get("path", "sprague");
  const server = { command, args: ["lsp"] };
  client = new LanguageClient(
    "sprague",
    "sprague",
    { run: server, debug: server },
    { documentSelector: [{ language: "sprague" }] }
  );
  context.subscriptions.push(client);
  client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
