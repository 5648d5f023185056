import * as vscode from 'vscode';
import { readSettings } from './settings';

export const PYTHON_EXTENSION_ID = 'ms-python.python';
export const DEFAULT_INTERPRETER = 'python3';

export type InterpreterSource = 'setting' | 'python-extension' | 'default';

export interface Interpreter {
  /** Executable to run (absolute path or a name looked up on PATH). */
  path: string;
  source: InterpreterSource;
}

/** The parts of the Python extension's API we use (both the `environments` API and the older `settings` one). */
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri | vscode.WorkspaceFolder): { path: string; id?: string };
    resolveEnvironment?(env: { path: string; id?: string } | string): Promise<
      { executable?: { uri?: vscode.Uri } } | undefined
    >;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
  settings?: {
    getExecutionDetails?(resource?: vscode.Uri): { execCommand?: string[] };
    onDidChangeExecutionDetails?: vscode.Event<unknown>;
  };
}

async function pythonExtensionApi(): Promise<PythonExtensionApi | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION_ID);
  if (!ext) return undefined;
  try {
    return ext.isActive ? ext.exports : await ext.activate();
  } catch {
    return undefined;
  }
}

/** Asks the Python extension (if installed) for the interpreter it has selected for `resource`. */
export async function pythonExtensionInterpreter(resource?: vscode.Uri): Promise<string | undefined> {
  const api = await pythonExtensionApi();
  if (!api) return undefined;
  try {
    const envs = api.environments;
    if (envs?.getActiveEnvironmentPath) {
      const active = envs.getActiveEnvironmentPath(resource);
      if (envs.resolveEnvironment) {
        const resolved = await envs.resolveEnvironment(active);
        const exe = resolved?.executable?.uri?.fsPath;
        if (exe) return exe;
      }
      if (active?.path) return active.path;
    }
    const exec = api.settings?.getExecutionDetails?.(resource)?.execCommand;
    if (exec && exec.length > 0 && exec[0]) return exec[0];
  } catch {
    // Fall through to the default: the Python extension is an optional helper, never a requirement.
  }
  return undefined;
}

/**
 * Picks the interpreter that runs `python -m warp_ct serve`:
 * the `warpCt.interpreter` setting, else the Python extension's active interpreter, else `python3`.
 */
export async function resolveInterpreter(resource?: vscode.Uri): Promise<Interpreter> {
  const configured = readSettings(resource).interpreter;
  if (configured) return { path: expandVariables(configured, resource), source: 'setting' };
  const fromPython = await pythonExtensionInterpreter(resource);
  if (fromPython) return { path: fromPython, source: 'python-extension' };
  return { path: DEFAULT_INTERPRETER, source: 'default' };
}

/** Subscribes to interpreter changes in the Python extension (no-op when it is not installed). */
export async function onPythonInterpreterChange(listener: () => void): Promise<vscode.Disposable | undefined> {
  const api = await pythonExtensionApi();
  const event = api?.environments?.onDidChangeActiveEnvironmentPath ?? api?.settings?.onDidChangeExecutionDetails;
  return event ? event(() => listener()) : undefined;
}

/** Expands `~` and `${workspaceFolder}` in the `warpCt.interpreter` setting. */
export function expandVariables(p: string, resource?: vscode.Uri): string {
  const home = process.env.HOME ?? process.env.USERPROFILE;
  if (home && (p === '~' || p.startsWith('~/'))) p = home + p.slice(1);
  if (p.includes('${workspaceFolder}')) {
    const folder =
      (resource && vscode.workspace.getWorkspaceFolder(resource)) ?? vscode.workspace.workspaceFolders?.[0];
    if (folder) p = p.split('${workspaceFolder}').join(folder.uri.fsPath);
  }
  return p;
}
