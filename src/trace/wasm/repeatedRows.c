// The scanner's fast path for rows that repeat the row before but for two fields (csvScanner.ts, RepeatedFields
// with tail = head + 2: a long-layout counter_collection.csv, where a dispatch's rows differ only in Counter_Name
// and Counter_Value). Built to WebAssembly by scripts/build-wasm.mjs (clang, SIMD compares of 16 bytes).
//
// A row is taken when it is, byte for byte: the previous row's first `prefix_len` bytes (its first `head` fields
// and their commas); a name of one or more bytes with no `"`, CR or LF that does not start with a digit or `-`,
// bare or in quotes, and a comma; a plain non-negative number and a comma; then the previous row's last
// `tail_len` bytes (its `tail` fields and its line end, an LF). The number is digits, or digits with a fraction
// and/or an exponent as rocprofv3 writes counter values (`16384.000000`, `2.48342814e-02`), at most 15 digits in
// all and a power of ten of at most 22 either way: then one multiplication or division of two exact doubles
// rounds it as JavaScript's Number() does (Clinger's fast path). Such a row parses as the JavaScript scanner
// parses it, every other field as in the row before. Anything else ends the run, and JavaScript reads the row.
#include <stdint.h>
#include <wasm_simd128.h>

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int same_bytes(const uint8_t *a, const uint8_t *b, int n) {
  int i = 0;
  for (; i + 16 <= n; i += 16)
    if (!wasm_i8x16_all_true(wasm_i8x16_eq(wasm_v128_load(a + i), wasm_v128_load(b + i)))) return 0;
  for (; i < n; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

static int is_digit(uint8_t c) { return (unsigned)(c - '0') <= 9; }

// Flags of a row taken (out[4k + 3]).
#define QUOTED_NAME 1
#define INTEGER 2

// Rows from `pos` in data[0, len), the one before starting at `prev_start` with its tail at `prev_tail`. A row
// that starts at or after `stop`, or that the data may not hold whole, ends the run. For each row taken, out[4k..]
// gets where it starts, where its name ends (before a closing quote), where its number ends, and its flags;
// values[k] the number. Returns the rows taken (at most max_rows).
int repeated_rows(const uint8_t *data, int pos, int len, int stop, int prev_start, int prefix_len, int prev_tail,
                  int tail_len, int32_t *out, double *values, int max_rows) {
  int k = 0;
  while (k < max_rows) {
    const int row = pos;
    if (row >= stop || row + prefix_len >= len) break;
    if (!same_bytes(data + row, data + prev_start, prefix_len)) break;
    int p = row + prefix_len;
    const int quoted = data[p] == '"';
    p += quoted;
    const int name = p;
    if (p >= len || is_digit(data[p]) || data[p] == '-') break;
    while (p < len) {
      const uint8_t c = data[p];
      if (c <= ',' && (c == ',' || c == '\n' || c == '\r' || c == '"')) break;
      p++;
    }
    if (p == name || p >= len) break;
    const int name_end = p;
    if (quoted) {
      if (data[p] != '"') break;
      p++;
    }
    if (p >= len || data[p] != ',') break;
    p++;
    // the number: digits [. digits] [e|E [+|-] digits]
    double sig = 0;
    int digits = 0, fraction = 0, exp10 = 0;
    while (p < len && is_digit(data[p])) {
      sig = sig * 10 + (data[p] - '0');
      digits++;
      p++;
    }
    int plain = 1;
    if (p < len && data[p] == '.') {
      plain = 0;
      p++;
      while (p < len && is_digit(data[p])) {
        sig = sig * 10 + (data[p] - '0');
        digits++;
        fraction++;
        p++;
      }
    }
    if (digits == 0 || digits > 15) break;
    if (p < len && (data[p] == 'e' || data[p] == 'E')) {
      plain = 0;
      p++;
      int negative = 0;
      if (p < len && (data[p] == '+' || data[p] == '-')) negative = data[p++] == '-';
      const int from = p;
      while (p < len && is_digit(data[p]) && p - from < 3) exp10 = exp10 * 10 + (data[p++] - '0');
      if (p == from) break;
      if (negative) exp10 = -exp10;
    }
    if (p >= len || data[p] != ',') break;
    exp10 -= fraction;
    if (exp10 > 22 || exp10 < -22) break;
    const double v = exp10 >= 0 ? sig * POW10[exp10] : sig / POW10[-exp10];
    const int value_end = p++;
    if (p + tail_len > len || !same_bytes(data + p, data + prev_tail, tail_len)) break;
    out[4 * k] = row;
    out[4 * k + 1] = name_end;
    out[4 * k + 2] = value_end;
    out[4 * k + 3] = (quoted ? QUOTED_NAME : 0) | (plain ? INTEGER : 0);
    values[k] = v;
    prev_start = row;
    prev_tail = p;
    pos = p + tail_len;
    k++;
  }
  return k;
}
