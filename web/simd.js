// Whether this browser runs WebAssembly's SIMD instructions: the page loads
// transformer-tracer-simd.js if it does, transformer-tracer.js if not (the
// same program and numbers; Safari before 16.4 has none). ?nosimd forces the
// plain build. Shared by index.html, bench.html and the service worker.
"use strict";
var ttSimd = (function () {
  if (typeof location !== "undefined" && /[?&]nosimd\b/.test(location.search)) return false;
  // a module of one function that returns a v128.const: valid only where SIMD is
  var bytes = [0, 97, 115, 109, 1, 0, 0, 0,              // "\0asm", version 1
               1, 5, 1, 96, 0, 1, 123,                    // type: () -> v128
               3, 2, 1, 0,                                // function 0 has type 0
               10, 22, 1, 20, 0, 253, 12].concat(new Array(16).fill(0), [11]);  // body: v128.const 0, end
  try {
    return typeof WebAssembly === "object" && WebAssembly.validate(new Uint8Array(bytes));
  } catch (e) {
    return false;
  }
})();
var ttProgram = ttSimd ? "transformer-tracer-simd" : "transformer-tracer";
