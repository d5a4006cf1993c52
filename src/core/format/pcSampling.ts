// Words for PC-sampling names (rocprofiler-sdk's enum names without their prefix, src/core/protocol/pcSampling.ts).

/** `WAITCNT` -> `waitcnt`, `ALU_DEPENDENCY` -> `alu dependency`. */
export function stallLabel(reason: string): string {
  return reason.toLowerCase().replace(/_/g, ' ');
}
