import { execFile } from 'child_process';
import type { ProcessRunner } from './seams';

/** Runs a short command without a shell and collects its output (never rejects). */
export const runProcess: ProcessRunner = (command, args, options) =>
  new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, timeout: options.timeoutMs, windowsHide: true, maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        const err = error as (NodeJS.ErrnoException & { code?: string | number }) | null;
        if (err && typeof err.code === 'string') {
          resolve({ code: null, stdout: String(stdout), stderr: String(stderr), errorCode: err.code, errorMessage: err.message });
          return;
        }
        const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr), errorMessage: err?.message });
      },
    );
  });
