// Opens a URL in the user's browser when the platform has an opener (xdg-open, open, start); never waits for it.
import { spawn } from 'node:child_process';

function browserCommand(platform: NodeJS.Platform = process.platform): { command: string; args: string[] } {
  if (platform === 'darwin') return { command: 'open', args: [] };
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""'] };
  return { command: 'xdg-open', args: [] };
}

/** Resolves true when the opener started, false when there is none (or it failed to start). */
export function openBrowser(url: string): Promise<boolean> {
  const { command, args } = browserCommand();
  return new Promise((resolve) => {
    try {
      const child = spawn(command, [...args, url], { detached: true, stdio: 'ignore' });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}
