// A failed run's notification: the workflow's Explanation.actions as buttons (then "Show Output"), and what each
// button does: a command (register, re-register, select target, set token, the Problems panel), or the same file
// run again in profile mode on another AMD Instinct GPU ("Profile on MI355X") or on GPU MODE's service ("Profile
// on GPU MODE": kernelRunner.server stays as it is; without a cli_id, registration comes first).
import * as vscode from 'vscode';
import type { Action, ActionId, Explanation } from '../../core/submission/index';
import { commandId } from '../commandIds';
import type { RegistrationOutcome } from '../gpumode/registration';
import type { TargetChoice, Targets } from '../targets';
import { notify } from '../ui';
import { errorMessage } from '../../core/errors';

/** What a button may change about the run it repeats. */
export interface RerunChange {
  mode: 'profile';
  /** Profile on this GPU instead of kernelRunner.profileGpu. */
  gpu?: string;
  /** Run on GPU MODE's service for this once. */
  where?: TargetChoice;
}

export interface FailureActionHost {
  targets: Targets;
  /** Runs the failed run's file again with these changes. */
  rerun(change: RerunChange): Promise<void>;
  showOutput(): void;
}

/** Buttons that are just a command. */
const COMMANDS: Partial<Record<ActionId, string>> = {
  register: commandId('registerGpuMode'),
  reregister: commandId('reregisterGpuMode'),
  'select-target': commandId('selectTarget'),
  'set-token': commandId('setToken'),
  'show-problems': 'workbench.actions.view.problems',
};

const SHOW_OUTPUT = 'Show Output';

/** The error notification with the explanation's actions; a click runs the action. */
export function notifyFailure(text: string, explanation: Explanation, host: FailureActionHost): void {
  const actions = explanation.actions;
  void notify.error(text, ...actions.map((a) => a.label), SHOW_OUTPUT).then((pick) => {
    if (pick === SHOW_OUTPUT) host.showOutput();
    const chosen = actions.find((a) => a.label === pick);
    if (chosen)
      void runAction(chosen, host).catch((err: unknown) => notify.error(`Kernel Runner: ${errorMessage(err)}`));
  });
}

async function runAction(action: Action, host: FailureActionHost): Promise<void> {
  const command = COMMANDS[action.id];
  if (command) {
    await vscode.commands.executeCommand(command);
    return;
  }
  switch (action.id) {
    case 'profile-on-gpu':
      await host.rerun({ mode: 'profile', ...(action.gpu ? { gpu: action.gpu } : {}) });
      return;
    case 'profile-on-gpumode': {
      if (!(await hasGpuModeIdentity(host.targets))) {
        const registered = await vscode.commands.executeCommand<RegistrationOutcome | undefined>(
          commandId('registerGpuMode'),
        );
        // Registration says itself why it stopped (dismissed, the browser page not finished yet).
        if (registered?.state !== 'registered') return;
      }
      await host.rerun({ mode: 'profile', where: 'gpumode' });
      return;
    }
    default:
      return;
  }
}

/** Whether a run on GPU MODE's service would send an identity (a cli_id in ~/.popcorn.yaml, or a stored token). */
async function hasGpuModeIdentity(targets: Targets): Promise<boolean> {
  const id = await targets.identity(targets.gpuModeUrl());
  return Boolean(id.cliId ?? id.token);
}
