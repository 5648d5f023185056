import * as vscode from 'vscode';
import {
  LanguageClient,
  State,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import type { ClientFactory, ClientSpec, ClientState, LanguageClientLike } from './seams';

export function serverOptions(spec: ClientSpec): ServerOptions {
  return {
    command: spec.launch.command,
    args: spec.launch.args,
    options: { cwd: spec.launch.cwd },
    transport: TransportKind.stdio,
  };
}

export function clientOptions(spec: ClientSpec): LanguageClientOptions {
  return {
    documentSelector: spec.documentSelector,
    initializationOptions: spec.initializationOptions,
    synchronize: {
      configurationSection: spec.configurationSection,
      fileEvents: spec.fileWatchers,
    },
    outputChannel: spec.outputChannel,
    // Startup failures are reported by the extension itself, with the install hint.
    initializationFailedHandler: () => false,
  };
}

function toState(state: State): ClientState {
  switch (state) {
    case State.Running:
      return 'running';
    case State.Starting:
      return 'starting';
    default:
      return 'stopped';
  }
}

/** The production factory: a vscode-languageclient `LanguageClient` behind the small `LanguageClientLike` seam. */
export const createLanguageClient: ClientFactory = (spec) => {
  const client = new LanguageClient(spec.id, spec.name, serverOptions(spec), clientOptions(spec));
  const wrapped: LanguageClientLike = {
    start: () => client.start(),
    stop: () => client.stop(),
    sendRequest: <R>(method: string, params: unknown, token?: vscode.CancellationToken) =>
      client.sendRequest<R>(method, params, token),
    onDidChangeState: (listener) => client.onDidChangeState((e) => listener(toState(e.newState))),
    isRunning: () => client.isRunning(),
  };
  return wrapped;
};
