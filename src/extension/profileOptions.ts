// Profile options in the editor: the `kernelRunner.profile.*` settings, checked as the runner checks them
// (core/profileOptions.ts), and with `kernelRunner.profile.counters: ask` (or `.pcSampling: ask`) a quick pick of
// the counter set (or the PC-sampling method) each time a file is profiled on a runner of ours.
import * as vscode from 'vscode';
import {
  checkProfileOptions,
  hasProfileOptions,
  ProfileOptionError,
  type ProfileOptions,
} from '../core/profileOptions';
import type { Config } from './config';
import { askText, notify, pickOne } from './ui';

const SETTING_OF: Record<keyof ProfileOptions, string> = {
  counters: 'kernelRunner.profile.counters',
  kernelRegex: 'kernelRunner.profile.kernelRegex',
  caseIndex: 'kernelRunner.profile.case',
  launches: 'kernelRunner.profile.launches',
  pcSampling: 'kernelRunner.profile.pcSampling',
  pcSamplingInterval: 'kernelRunner.profile.pcSamplingInterval',
};

const COUNTER_PICK_TITLE = 'Kernel Runner: hardware counters for this profile';
const PC_SAMPLING_PICK_TITLE = 'Kernel Runner: PC sampling for this profile';

interface CounterItem extends vscode.QuickPickItem {
  value: string;
}

/** The counter choice of `ask`: off, the presets, or a list typed in; undefined when dismissed. */
async function askCounters(): Promise<string | undefined> {
  const items: CounterItem[] = [
    { label: 'Trace only', description: 'counters off', value: 'off' },
    {
      label: 'Roofline',
      description: 'FLOPs and bytes per kernel (HBM, L2, L1, LDS): several rocprofv3 passes',
      value: 'roofline',
    },
    {
      label: 'Speed of light',
      description: "rocprof-compute's block 2: rates, hit rates, occupancy",
      value: 'speed-of-light',
    },
    { label: 'Counters…', description: 'a comma-separated list of counter names', value: '' },
  ];
  const picked = await pickOne(items, {
    title: COUNTER_PICK_TITLE,
    placeHolder: 'Which counters rocprofv3 collects (kernelRunner.profile.counters)',
  });
  if (!picked) return undefined;
  if (picked.value !== '') return picked.value;
  return askText({
    title: COUNTER_PICK_TITLE,
    prompt: 'Counter names, comma-separated (letters, digits, _ and [ ])',
    placeHolder: 'SQ_WAVES,GRBM_GUI_ACTIVE',
    validateInput: (text) => {
      try {
        checkProfileOptions({ counters: text });
        return null;
      } catch (err) {
        return err instanceof ProfileOptionError ? err.message : String(err);
      }
    },
  });
}

/** The PC-sampling choice of `ask`: off, host-trap or stochastic; undefined when dismissed. */
async function askPcSampling(): Promise<string | undefined> {
  const items: CounterItem[] = [
    { label: 'Off', description: 'no PC sampling', value: 'off' },
    { label: 'Host trap', description: 'samples every N microseconds (gfx90a and later)', value: 'host_trap' },
    {
      label: 'Stochastic',
      description: 'samples every N cycles, with stall reasons (MI300, gfx942)',
      value: 'stochastic',
    },
  ];
  const picked = await pickOne(items, {
    title: PC_SAMPLING_PICK_TITLE,
    placeHolder: 'Where in each kernel the time goes (kernelRunner.profile.pcSampling)',
  });
  return picked?.value;
}

/**
 * The profile options of a run from the settings (asking for the counters when the setting says `ask`):
 * undefined when there are none, null when the run should not go (a dismissed pick, a bad setting, said).
 */
export async function profileOptionsForRun(config: Config): Promise<ProfileOptions | undefined | null> {
  let counters = config.profileCounters;
  if (counters.toLowerCase() === 'ask') {
    const picked = await askCounters();
    if (picked === undefined) return null;
    counters = picked;
  }
  let pcSampling = config.profilePcSampling;
  if (pcSampling === 'ask') {
    const picked = await askPcSampling();
    if (picked === undefined) return null;
    pcSampling = picked;
  }
  try {
    const options = checkProfileOptions({
      counters,
      kernelRegex: config.profileKernelRegex,
      caseIndex: config.profileCase,
      launches: config.profileLaunches,
      pcSampling,
      // the interval setting goes with a method only (the method's default when empty)
      ...(pcSampling !== 'off' ? { pcSamplingInterval: config.profilePcSamplingInterval } : {}),
    });
    return hasProfileOptions(options) ? options : undefined;
  } catch (err) {
    if (!(err instanceof ProfileOptionError)) throw err;
    void notify.error(`Kernel Runner: ${SETTING_OF[err.field]}: ${err.message}`, 'Open Settings').then((a) => {
      if (a === 'Open Settings')
        void vscode.commands.executeCommand('workbench.action.openSettings', SETTING_OF[err.field]);
    });
    return null;
  }
}
