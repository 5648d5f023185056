import type * as vscode from 'vscode';
import { createLanguageClient } from './client';
import { WarpCtExtension } from './core';
import { runProcess } from './process';

let extension: WarpCtExtension | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<WarpCtExtension> {
  extension = new WarpCtExtension(context, { createClient: createLanguageClient, runProcess });
  context.subscriptions.push(extension);
  await extension.activate();
  return extension;
}

export async function deactivate(): Promise<void> {
  const ext = extension;
  extension = undefined;
  await ext?.stop();
}
