;; byteClasses for pass one, 16 bytes at a time (WebAssembly SIMD): what kinds of byte
;; memory[start..end) holds. Returns 1 (CONTROL_BYTE) as soon as a byte is below 0x20; otherwise
;; 2 (HIGH_BYTE) when one is 0x80 or above, or'ed with 4 (DEL_BYTE) when one is 0x7F. The same
;; contract as the JavaScript `byteClasses` in scanner.ts, which it must agree with.
;;
;; Assembled by scripts/build-wasm.mjs into classes-wasm.ts (the bytes, base64). The memory is the
;; module's own, 16 MiB + 64 KiB, never grown (growing would detach the buffers that view it).
(module
  (memory (export "memory") 257 257)
  (func (export "classes") (param $i i32) (param $end i32) (result i32)
    (local $v v128) (local $high v128) (local $del v128) (local $c i32) (local $hb i32) (local $db i32)
    ;; 64 bytes a round, while 64 remain (start and end are below 2^31: signed compares are safe)
    (block $wide
      (loop $round
        (br_if $wide (i32.gt_s (i32.add (local.get $i) (i32.const 64)) (local.get $end)))
        (local.set $v (v128.load (local.get $i)))
        (br_if $wide (v128.any_true (i8x16.lt_u (local.get $v) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32))))
        (local.set $high (v128.or (local.get $high) (local.get $v)))
        (local.set $del (v128.or (local.get $del) (i8x16.eq (local.get $v) (v128.const i8x16 127 127 127 127 127 127 127 127 127 127 127 127 127 127 127 127))))
        (local.set $v (v128.load offset=16 (local.get $i)))
        (br_if $wide (v128.any_true (i8x16.lt_u (local.get $v) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32))))
        (local.set $high (v128.or (local.get $high) (local.get $v)))
        (local.set $del (v128.or (local.get $del) (i8x16.eq (local.get $v) (v128.const i8x16 127 127 127 127 127 127 127 127 127 127 127 127 127 127 127 127))))
        (local.set $v (v128.load offset=32 (local.get $i)))
        (br_if $wide (v128.any_true (i8x16.lt_u (local.get $v) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32))))
        (local.set $high (v128.or (local.get $high) (local.get $v)))
        (local.set $del (v128.or (local.get $del) (i8x16.eq (local.get $v) (v128.const i8x16 127 127 127 127 127 127 127 127 127 127 127 127 127 127 127 127))))
        (local.set $v (v128.load offset=48 (local.get $i)))
        (br_if $wide (v128.any_true (i8x16.lt_u (local.get $v) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32))))
        (local.set $high (v128.or (local.get $high) (local.get $v)))
        (local.set $del (v128.or (local.get $del) (i8x16.eq (local.get $v) (v128.const i8x16 127 127 127 127 127 127 127 127 127 127 127 127 127 127 127 127))))
        (local.set $i (i32.add (local.get $i) (i32.const 64)))
        (br $round)))
    (local.set $hb (i32.ne (i8x16.bitmask (local.get $high)) (i32.const 0)))
    (local.set $db (v128.any_true (local.get $del)))
    ;; the rest (and a round that met a control byte, from its start) a byte at a time
    (block $done
      (loop $byte
        (br_if $done (i32.ge_s (local.get $i) (local.get $end)))
        (local.set $c (i32.load8_u (local.get $i)))
        (if (i32.lt_u (local.get $c) (i32.const 32)) (then (return (i32.const 1))))
        (if (i32.ge_u (local.get $c) (i32.const 128)) (then (local.set $hb (i32.const 1))))
        (if (i32.eq (local.get $c) (i32.const 127)) (then (local.set $db (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $byte)))
    (i32.or (i32.shl (local.get $hb) (i32.const 1)) (i32.shl (local.get $db) (i32.const 2))))
)
