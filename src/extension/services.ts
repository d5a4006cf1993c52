// The long-lived parts of the extension, built once by main.ts and handed to every command.
import type { ChoiceStore } from './choices';
import type { SubmissionDiagnostics } from './diagnostics';
import type { GpuModeRegistration } from './gpumode/registration';
import type { MySubmissions } from './gpumode/submissionsView';
import type { RunOutput } from './runs/output';
import type { RunController } from './runs/controller';
import type { RunsView } from './runs/view';
import type { Targets } from './targets';
import type { TraceOpener } from './traces';

export interface Services {
  output: RunOutput;
  targets: Targets;
  runs: RunController;
  traces: TraceOpener;
  registration: GpuModeRegistration;
  submissions: MySubmissions;
  diagnostics: SubmissionDiagnostics;
  choices: ChoiceStore;
  runsView: RunsView;
}
