/**
 * Entry point of dist/language-server.js: the language server for Agent Lab's prompt files and
 * agent-lab.json. The transport comes from the command line (--stdio, --node-ipc, --socket=N),
 * as vscode-languageclient passes it.
 */
import { createConnection, ProposedFeatures } from "vscode-languageserver/node";
import { startPromptServer } from "./prompt-server";

const connection = createConnection(ProposedFeatures.all);
startPromptServer(connection);
connection.listen();
