// Generates node-answers.jsonl: for each input, what Node.js's JSON.parse
// then JSON.stringify give (or the parse error), and Object.keys order.
// Run: node gen.mjs > node-answers.jsonl (any Node.js >= 12).
const inputs = [
  '100.0', '-0.0', '-0', '0', '1e-07', '1e-7', '1E+21', '1e21', '123456789012345678901', '12345678901234567890',
  '9007199254740993', '9007199254740992', '0.1', '0.000001', '0.0000001', '1.5e300', '1e309', '-1e309', '2.5e-10',
  '5e-324', '1.7976931348623157e308', '123.456e2', '1.0000000000000002', '-12.50', '1e0', '0e5', '4.35', '0.3',
  '"x\\ud800y"', '"\\udfff"', '"\\ud83d\\ude00"', '"\\ud83d\\u0041"', '"\\ude00\\ud83d"', '"\\ud83d"', '"a\\u2028b\\u2029"',
  '"\\u0000\\u001f\\u007f"', '"\\b\\f\\n\\r\\t\\/\\"\\\\"', '"é😀"', '"\\uD800\\uDC00"', '"\\uDBFF\\uDFFF"',
  '{"b":1,"a":2,"b":3}', '{"2":1,"1":2,"a":3,"0":4}', '{"10":1,"9":2,"01":3,"-1":4,"4294967295":5,"4294967294":6}',
  '{"__proto__":1,"x":2}', '[1,[2,[3,{}]],{"":null}]', ' \t\n\r[1] ', '{"a":{"a":{"a":[]}}}',
  '[true,false,null]', '"<b>&amp;</b> <script>"', '{"k\\ud800":1}', '[01]', '[1.]', '[.5]', '[1e]', '[-]', '{"a" 1}',
  '[1,]', '{"a":1,}', '"\\x41"', '"\\u12"', '"tab\tin"', '\u00a0[1]', '[1] x', '', 'nul', '"\\u00e9"',
];
for (const input of inputs) {
  let out;
  try {
    const v = JSON.parse(input);
    out = { input, ok: true, stringify: JSON.stringify(v) };
    if (v && typeof v === 'object' && !Array.isArray(v)) out.keys = JSON.stringify(Object.keys(v));
  } catch (e) {
    out = { input, ok: false };
  }
  console.log(JSON.stringify(out));
}
