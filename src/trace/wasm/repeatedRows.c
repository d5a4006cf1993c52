// The scanner's fast path for rows that repeat the row before but for two fields (csvScanner.ts, RepeatedFields
// with tail = head + 2: a long-layout counter_collection.csv, where a dispatch's rows differ only in Counter_Name
// and Counter_Value). Built to WebAssembly by scripts/build-wasm.mjs (clang, SIMD compares of 16 bytes).
//
// A row is taken when it is, byte for byte: the previous row's first `prefix_len` bytes (its first `head` fields
// and their commas); a name of one or more bytes that has no `"`, CR or LF, does not start with a digit or `-`,
// and ends at a comma; 1 to 15 ASCII digits and a comma; then the previous row's last `tail_len` bytes (its
// `tail` fields and its line end, an LF). Such a row parses exactly as the JavaScript scanner would parse it: the
// name to NaN, the digits to their value (below 2^53), every other field as in the row before. Anything else ends
// the run, and the JavaScript scanner takes the row.
#include <stdint.h>
#include <wasm_simd128.h>

static int same_bytes(const uint8_t *a, const uint8_t *b, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16)
    if (!wasm_i8x16_all_true(wasm_i8x16_eq(wasm_v128_load(a + i), wasm_v128_load(b + i)))) return 0;
  for (; i < n; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

// Rows from `pos` in data[0, len), the one before starting at `prev_start` with its tail at `prev_tail`. A row
// that starts at or after `stop`, or that the data may not hold whole, ends the run. For each row taken, out[3k..]
// gets where it starts, where its name ends and where its digits end, values[k] their value. Returns the rows
// taken (at most max_rows).
int repeated_rows(const uint8_t *data, int pos, int len, int stop, int prev_start, int prefix_len, int prev_tail,
                  int tail_len, int32_t *out, double *values, int max_rows) {
  int k = 0;
  while (k < max_rows) {
    const int row = pos;
    if (row >= stop || row + prefix_len >= len) break;
    if (!same_bytes(data + row, data + prev_start, prefix_len)) break;
    int p = row + prefix_len;
    const uint8_t first = data[p];
    if ((first >= '0' && first <= '9') || first == '-') break;
    while (p < len) {
      const uint8_t c = data[p];
      if (c <= ',' && (c == ',' || c == '\n' || c == '\r' || c == '"')) break;
      p++;
    }
    if (p >= len || data[p] != ',' || p == row + prefix_len) break;
    const int name_end = p++;
    const int digits = p;
    double v = 0;
    while (p < len && p - digits < 15) {
      const unsigned d = (unsigned)data[p] - '0';
      if (d > 9) break;
      v = v * 10 + d;
      p++;
    }
    if (p == digits || p >= len || data[p] != ',') break;
    const int value_end = p++;
    if (p + tail_len > len || !same_bytes(data + p, data + prev_tail, tail_len)) break;
    out[3 * k] = row;
    out[3 * k + 1] = name_end;
    out[3 * k + 2] = value_end;
    values[k] = v;
    prev_start = row;
    prev_tail = p;
    pos = p + tail_len;
    k++;
  }
  return k;
}
