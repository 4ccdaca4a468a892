// Generates node-numbers.txt: doubles (as the hex of their bits) and
// String(x) for each, from a fixed pseudo-random sequence of bit patterns
// and decimal literals. Run: node numbers.mjs > node-numbers.txt
const buf = new DataView(new ArrayBuffer(8));
let seed = 0x2545F491n;
function next() { seed = (seed * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn; return seed; }
const lines = [];
for (let i = 0; i < 3000; i++) {
  const bits = next();
  buf.setBigUint64(0, bits);
  const x = buf.getFloat64(0);
  if (!Number.isFinite(x)) continue;
  lines.push(bits.toString(16).padStart(16, '0') + ' ' + String(x));
}
const lits = [1, 0.1, 1e21, 1e-7, 123e-20, 2 ** 53, 2 ** 53 + 2, 1 / 3, 100, 1e6, 1.5, -2.5e-10, 5e-324, 1e300, 0.000001, 123456789.125];
for (const x of lits) { buf.setFloat64(0, x); lines.push(buf.getBigUint64(0).toString(16).padStart(16, '0') + ' ' + String(x)); }
console.log(lines.join('\n'));
