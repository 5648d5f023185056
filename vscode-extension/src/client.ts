import * as vscode from 'vscode';
import {
  LanguageClient,
  State,
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateRequest,
  type ProgressToken,
  type WorkDoneProgressBegin,
  type WorkDoneProgressEnd,
  type WorkDoneProgressReport,
  type LanguageClientOptions,
  type ServerOptions,
  type StaticFeature,
} from 'vscode-languageclient/node';
import type { ClientFactory, ClientSpec, ClientState, LanguageClientLike, ServerProgress } from './seams';

export function serverOptions(spec: ClientSpec): ServerOptions {
  return {
    command: spec.launch.command,
    args: spec.launch.args,
    options: { cwd: spec.launch.cwd },
    // No `transport`: stdio all the same, but TransportKind.stdio would append `--stdio`, which
    // `warp-ct serve` does not take.
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
    middleware: {
      executeCommand: (command, args, next) => {
        const local = spec.localCommands?.[command];
        return local ? local(...args) : next(command, args);
      },
    },
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
  const progress = new vscode.EventEmitter<ServerProgress>();
  const progressListeners = new Map<ProgressToken, vscode.Disposable>();
  // Replaces vscode-languageclient's own handler, which shows the progress in the status bar without
  // a way to cancel it. Features initialise in registration order, so this one runs after the built-in one.
  const takeOverProgress = () =>
    client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
      progressListeners.get(token)?.dispose();
      const listener = client.onProgress(
        WorkDoneProgress.type,
        token,
        (value: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd) => {
          progress.fire({ token, ...value });
          if (value.kind === 'end') {
            progressListeners.get(token)?.dispose();
            progressListeners.delete(token);
          }
        },
      );
      progressListeners.set(token, listener);
    });
  const feature: StaticFeature = {
    // The extension shows the probe's reports itself (a webview beside the code), so the server
    // need not open its markdown summary with window/showDocument after measuring.
    fillClientCapabilities: (capabilities) => {
      capabilities.experimental = { ...(capabilities.experimental as object | undefined), warpCt: { showsReports: true } };
    },
    getState: () => ({ kind: 'static' }),
    initialize: () => {
      takeOverProgress();
    },
    clear: () => {
      for (const d of progressListeners.values()) d.dispose();
      progressListeners.clear();
    },
  };
  client.registerFeature(feature);
  const wrapped: LanguageClientLike = {
    start: () => client.start(),
    stop: () => client.stop(),
    sendRequest: <R>(method: string, params: unknown, token?: vscode.CancellationToken) =>
      client.sendRequest<R>(method, params, token),
    onDidChangeState: (listener) => client.onDidChangeState((e) => listener(toState(e.newState))),
    isRunning: () => client.isRunning(),
    onServerProgress: (listener) => progress.event(listener),
    cancelServerProgress: (token) => {
      void client.sendNotification(WorkDoneProgressCancelNotification.type, { token });
    },
  };
  return wrapped;
};
