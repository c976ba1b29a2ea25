;; Pass one's scan of a line in WebAssembly SIMD: the validating JSON scanner (`scan`), under the
;; contract scanner.ts states: valid only where JSON.parse succeeds, invalid only where it throws,
;; and the kept fields as JSON.parse would give them (tests check it against JSON.parse on
;; generated, corrupted, fixture and corpus lines). Where it cannot run, JSON.parse reads the line.
;;
;; Assembled by scripts/build-wasm.mjs into scan-wasm.ts (the bytes, base64). The memory is the
;; module's own, 16 MiB + 192 KiB, never grown (growing would detach the buffers that view it): the
;; first 16 MiB hold the read chunk, the next page the scan's results (OUT) and container stack, the
;; next `pairs`' table (PAIRS, 16 MiB + 64 KiB), the last `anchors`' buckets (BUCKETS, 16 MiB + 128 KiB).
;; Lines end by 16 MiB, so a 16-byte load that starts inside a line stays inside the memory; what it
;; reads past the line's end is never taken for part of the line.
;;
;; $classes(start, end), used by scan: what kinds of byte memory[start..end) holds, 16 at a time.
;; Returns 1 (CONTROL_BYTE) as soon as a byte is below 0x20; otherwise 2 (HIGH_BYTE) when one is
;; 0x80 or above, or'ed with 4 (DEL_BYTE) when one is 0x7F.
;;
;; scan(start, end, body): `scanLine` on memory[start..end) (body: end less a trailing CR). Returns
;; the verdict (0 valid, 1 invalid, 2 defer) and, for a valid line, leaves at OUT (16 MiB + 32 KiB)
;; the i32 slots `Slot` in scanner.ts names: positions are addresses in the memory, -1 for none.
;; Besides the top-level keys (type, id, parentId, timestamp, message) it keeps, inside `message`,
;; role, content (its kind, and where its value starts), provider, model, responseModel, usage (the object's range),
;; stopReason and toolCallId, and the ids of the content's toolCall blocks: their (open, close) quote pairs at OUT + 1024, their count
;; in the Calls slot (-1 when there are more than 64).
(module
  (memory (export "memory") 259 259)
  (func $classes (param $i i32) (param $end i32) (result i32)
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

  ;; Set by $string: whether the string it last scanned holds an escape; whether any string of the
  ;; line holds one that may decode to a control character (\u \r \b \f).
  (global $escaped (mut i32) (i32.const 0))
  (global $odd (mut i32) (i32.const 0))

  ;; The address of the closing quote of the string whose body starts at $i, or -1 when it is
  ;; invalid (a raw control byte, a bad escape, no closing quote before $end).
  (func $string (param $i i32) (param $end i32) (result i32)
    (local $v v128) (local $m i32) (local $c i32)
    (global.set $escaped (i32.const 0))
    (loop $next
      ;; the first quote, backslash or control byte among the next 16 bytes
      (local.set $v (v128.load (local.get $i)))
      (local.set $m (i8x16.bitmask (v128.or
        (v128.or
          (i8x16.eq (local.get $v) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34))
          (i8x16.eq (local.get $v) (v128.const i8x16 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92)))
        (i8x16.lt_u (local.get $v) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32)))))
      (if (i32.eqz (local.get $m))
        (then
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (br_if $next (i32.lt_s (local.get $i) (local.get $end)))
          (return (i32.const -1))))
      (local.set $i (i32.add (local.get $i) (i32.ctz (local.get $m))))
      (if (i32.ge_s (local.get $i) (local.get $end)) (then (return (i32.const -1))))
      (local.set $c (i32.load8_u (local.get $i)))
      (if (i32.eq (local.get $c) (i32.const 34)) (then (return (local.get $i))))
      (if (i32.lt_u (local.get $c) (i32.const 32)) (then (return (i32.const -1))))
      ;; a backslash: a valid escape, or the string is invalid
      (global.set $escaped (i32.const 1))
      (if (i32.ge_s (i32.add (local.get $i) (i32.const 1)) (local.get $end)) (then (return (i32.const -1))))
      (local.set $c (i32.load8_u offset=1 (local.get $i)))
      (if (i32.eq (local.get $c) (i32.const 0x75)) ;; \uXXXX
        (then
          (global.set $odd (i32.const 1))
          (if (i32.ge_s (i32.add (local.get $i) (i32.const 5)) (local.get $end)) (then (return (i32.const -1))))
          (if (i32.eqz (i32.and
                (i32.and (call $hex (i32.load8_u offset=2 (local.get $i))) (call $hex (i32.load8_u offset=3 (local.get $i))))
                (i32.and (call $hex (i32.load8_u offset=4 (local.get $i))) (call $hex (i32.load8_u offset=5 (local.get $i))))))
            (then (return (i32.const -1))))
          (local.set $i (i32.add (local.get $i) (i32.const 6)))
          (br $next)))
      (if (i32.or (i32.or (i32.eq (local.get $c) (i32.const 0x72)) (i32.eq (local.get $c) (i32.const 0x62))) (i32.eq (local.get $c) (i32.const 0x66)))
        (then (global.set $odd (i32.const 1)))) ;; \r \b \f
      (if (i32.eqz (i32.or
            (i32.or (i32.or (i32.eq (local.get $c) (i32.const 34)) (i32.eq (local.get $c) (i32.const 92))) (i32.or (i32.eq (local.get $c) (i32.const 0x2f)) (i32.eq (local.get $c) (i32.const 0x62))))
            (i32.or (i32.or (i32.eq (local.get $c) (i32.const 0x66)) (i32.eq (local.get $c) (i32.const 0x6e))) (i32.or (i32.eq (local.get $c) (i32.const 0x72)) (i32.eq (local.get $c) (i32.const 0x74))))))
        (then (return (i32.const -1))))
      (local.set $i (i32.add (local.get $i) (i32.const 2)))
      (br $next))
    (unreachable))

  (func $hex (param $c i32) (result i32)
    (i32.or
      (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10))
      (i32.lt_u (i32.sub (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x61)) (i32.const 6))))

  (func $digit (param $c i32) (result i32)
    (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10)))

  ;; The address after the number that starts at $i (JSON's grammar), or -1.
  (func $number (param $i i32) (param $end i32) (result i32)
    (local $d i32) (local $c i32)
    (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 0x2d)) (then (local.set $i (i32.add (local.get $i) (i32.const 1)))))
    (if (i32.ge_s (local.get $i) (local.get $end)) (then (return (i32.const -1))))
    (local.set $c (i32.load8_u (local.get $i)))
    (if (i32.eq (local.get $c) (i32.const 0x30))
      (then (local.set $i (i32.add (local.get $i) (i32.const 1))))
      (else
        (if (i32.eqz (call $digit (local.get $c))) (then (return (i32.const -1))))
        (local.set $i (call $digits (local.get $i) (local.get $end)))))
    (if (i32.and (i32.lt_s (local.get $i) (local.get $end)) (i32.eq (i32.load8_u (local.get $i)) (i32.const 0x2e)))
      (then
        (local.set $d (i32.add (local.get $i) (i32.const 1)))
        (local.set $i (call $digits (local.get $d) (local.get $end)))
        (if (i32.eq (local.get $i) (local.get $d)) (then (return (i32.const -1))))))
    (if (i32.and (i32.lt_s (local.get $i) (local.get $end)) (i32.eq (i32.or (i32.load8_u (local.get $i)) (i32.const 0x20)) (i32.const 0x65)))
      (then
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (if (i32.lt_s (local.get $i) (local.get $end))
          (then
            (local.set $c (i32.load8_u (local.get $i)))
            (if (i32.or (i32.eq (local.get $c) (i32.const 0x2b)) (i32.eq (local.get $c) (i32.const 0x2d)))
              (then (local.set $i (i32.add (local.get $i) (i32.const 1)))))))
        (local.set $d (local.get $i))
        (local.set $i (call $digits (local.get $d) (local.get $end)))
        (if (i32.eq (local.get $i) (local.get $d)) (then (return (i32.const -1))))))
    ;; a number byte right after it ("01", "1.2.3", "1e5e") makes it invalid
    (if (i32.lt_s (local.get $i) (local.get $end))
      (then
        (local.set $c (i32.load8_u (local.get $i)))
        (if (i32.or
              (i32.or (call $digit (local.get $c)) (i32.eq (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x65)))
              (i32.or (i32.or (i32.eq (local.get $c) (i32.const 0x2d)) (i32.eq (local.get $c) (i32.const 0x2b))) (i32.eq (local.get $c) (i32.const 0x2e))))
          (then (return (i32.const -1))))))
    (local.get $i))

  ;; The address after the run of digits that starts at $i.
  (func $digits (param $i i32) (param $end i32) (result i32)
    (block $done
      (loop $more
        (br_if $done (i32.ge_s (local.get $i) (local.get $end)))
        (br_if $done (i32.ge_u (i32.sub (i32.load8_u (local.get $i)) (i32.const 0x30)) (i32.const 10)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more)))
    (local.get $i))

  ;; Which kept key the bytes [$s, $s + $n) name: 0 another; at the top level ($where 0) 1 type,
  ;; 2 id, 3 parentId, 4 timestamp, 5 message; inside `message` ($where 1) 6 role, 7 content,
  ;; 8 provider, 9 model, 10 usage, 11 toolCallId, 14 responseModel, 15 stopReason; in a block of its content
  ;; ($where 2) 12 type, 13 id, and for a scan of the shape ($shape) 16 text, 17 thinking, 18 name,
  ;; 19 arguments.
  (func $key (param $s i32) (param $n i32) (param $where i32) (result i32)
    (if (i32.eq (local.get $where) (i32.const 2))
      (then
        (if (i32.and (i32.eq (local.get $n) (i32.const 4)) (i32.eq (i32.load (local.get $s)) (i32.const 0x65707974))) (then (return (i32.const 12))))
        (if (i32.and (i32.eq (local.get $n) (i32.const 2)) (i32.eq (i32.load16_u (local.get $s)) (i32.const 0x6469))) (then (return (i32.const 13))))
        (if (i32.eqz (global.get $shape)) (then (return (i32.const 0))))
        (if (i32.and (i32.eq (local.get $n) (i32.const 4)) (i32.eq (i32.load (local.get $s)) (i32.const 0x74786574))) (then (return (i32.const 16))))
        (if (i32.and (i32.eq (local.get $n) (i32.const 8)) (i64.eq (i64.load (local.get $s)) (i64.const 0x676e696b6e696874))) (then (return (i32.const 17))))
        (if (i32.and (i32.eq (local.get $n) (i32.const 4)) (i32.eq (i32.load (local.get $s)) (i32.const 0x656d616e))) (then (return (i32.const 18))))
        (if (i32.and (i32.eq (local.get $n) (i32.const 9)) (i32.and (i64.eq (i64.load (local.get $s)) (i64.const 0x746e656d75677261)) (i32.eq (i32.load8_u offset=8 (local.get $s)) (i32.const 0x73))))
          (then (return (i32.const 19))))
        (return (i32.const 0))))
    (if (local.get $where)
      (then
        (if (i32.and (i32.eq (local.get $n) (i32.const 4)) (i32.eq (i32.load (local.get $s)) (i32.const 0x656c6f72))) (then (return (i32.const 6))))
        (if (i32.and (i32.eq (local.get $n) (i32.const 7)) (i64.eq (i64.and (i64.load (local.get $s)) (i64.const 0xffffffffffffff)) (i64.const 0x746e65746e6f63))) (then (return (i32.const 7))))
        (if (i32.and (i32.eq (local.get $n) (i32.const 8)) (i64.eq (i64.load (local.get $s)) (i64.const 0x72656469766f7270))) (then (return (i32.const 8))))
        (if (i32.eq (local.get $n) (i32.const 5))
          (then
            (if (i64.eq (i64.and (i64.load (local.get $s)) (i64.const 0xffffffffff)) (i64.const 0x6c65646f6d)) (then (return (i32.const 9))))
            (if (i64.eq (i64.and (i64.load (local.get $s)) (i64.const 0xffffffffff)) (i64.const 0x6567617375)) (then (return (i32.const 10))))))
        (if (i32.and (i32.eq (local.get $n) (i32.const 10)) (i32.and (i64.eq (i64.load (local.get $s)) (i64.const 0x6c6c61436c6f6f74)) (i32.eq (i32.load16_u offset=8 (local.get $s)) (i32.const 0x6449))))
          (then (return (i32.const 11))))
        (if (i32.and (i32.eq (local.get $n) (i32.const 10)) (i32.and (i64.eq (i64.load (local.get $s)) (i64.const 0x73616552706f7473)) (i32.eq (i32.load16_u offset=8 (local.get $s)) (i32.const 0x6e6f))))
          (then (return (i32.const 15))))
        (if (i32.and (i32.eq (local.get $n) (i32.const 13)) (i32.and (i64.eq (i64.load (local.get $s)) (i64.const 0x65736e6f70736572)) (i64.eq (i64.and (i64.load offset=8 (local.get $s)) (i64.const 0xffffffffff)) (i64.const 0x6c65646f4d))))
          (then (return (i32.const 14))))
        (return (i32.const 0))))
    (if (i32.eq (local.get $n) (i32.const 4)) (then (return (i32.mul (i32.eq (i32.load (local.get $s)) (i32.const 0x65707974)) (i32.const 1)))))
    (if (i32.eq (local.get $n) (i32.const 2)) (then (return (i32.mul (i32.eq (i32.load16_u (local.get $s)) (i32.const 0x6469)) (i32.const 2)))))
    (if (i32.eq (local.get $n) (i32.const 8)) (then (return (i32.mul (i64.eq (i64.load (local.get $s)) (i64.const 0x6449746e65726170)) (i32.const 3)))))
    (if (i32.eq (local.get $n) (i32.const 9))
      (then (return (i32.mul (i32.and (i64.eq (i64.load (local.get $s)) (i64.const 0x6d617473656d6974)) (i32.eq (i32.load8_u offset=8 (local.get $s)) (i32.const 0x70))) (i32.const 4)))))
    (if (i32.eq (local.get $n) (i32.const 7))
      (then (return (i32.mul (i64.eq (i64.and (i64.load (local.get $s)) (i64.const 0xffffffffffffff)) (i64.const 0x6567617373656d)) (i32.const 5)))))
    (i32.const 0))

  ;; Set by scan: whether its caller asked for the content's texts too (scanShape: grep's count).
  (global $shape (mut i32) (i32.const 0))

  (func (export "scan") (param $start i32) (param $end i32) (param $body i32) (param $texts i32) (result i32)
    (local $o i32) (local $i i32) (local $c i32) (local $state i32) (local $depth i32)
    (local $pending i32) (local $msgDepth i32) (local $close i32) (local $longest i32) (local $n i32)
    (local $usageDepth i32) (local $contentDepth i32) (local $blockDepth i32) (local $blockCall i32) (local $blockIdOpen i32) (local $blockIdClose i32) (local $calls i32)
    (local.set $o (i32.const 16809984)) ;; OUT; the container stack follows it at OUT + 256
    (global.set $shape (local.get $texts))
    ;; (a content block's type, text, thinking, name and arguments are kept at OUT + 2304 on, not in
    ;; locals: more locals live across the loop made every line's scan 3 % slower)
    (i32.store (local.get $o) (call $classes (local.get $start) (local.get $body)))
    (global.set $odd (i32.const 0))
    ;; every slot after the classes to -1, then the kinds to 0
    (v128.store offset=4 (local.get $o) (v128.const i32x4 -1 -1 -1 -1))
    (v128.store offset=20 (local.get $o) (v128.const i32x4 -1 -1 -1 -1))
    (v128.store offset=36 (local.get $o) (v128.const i32x4 -1 -1 -1 -1))
    (v128.store offset=52 (local.get $o) (v128.const i32x4 -1 -1 -1 -1))
    (v128.store offset=68 (local.get $o) (v128.const i32x4 -1 -1 -1 -1))
    (v128.store offset=84 (local.get $o) (v128.const i32x4 -1 -1 -1 -1))
    (v128.store offset=100 (local.get $o) (v128.const i32x4 -1 -1 -1 -1))
    (i32.store offset=24 (local.get $o) (i32.const 0)) ;; parentKind
    (i32.store offset=60 (local.get $o) (i32.const 0)) ;; contentKind
    (i32.store offset=72 (local.get $o) (i32.const 0)) ;; longEscaped
    (i32.store offset=108 (local.get $o) (i32.const 0)) ;; calls
    (i64.store offset=120 (local.get $o) (i64.const -1)) ;; stopReason's quotes
    (i32.store offset=128 (local.get $o) (i32.const -1)) ;; contentStart
    (i32.store offset=132 (local.get $o) (i32.const 0)) ;; texts
    (local.set $usageDepth (i32.const -1))
    (local.set $contentDepth (i32.const -1))
    (local.set $blockDepth (i32.const -1))
    (local.set $longest (i32.const 65535)) ;; LONG_STRING - 1
    (local.set $msgDepth (i32.const -1))
    (local.set $i (local.get $start))
    ;; leading whitespace; a blank line is invalid
    (block $found
      (loop $ws
        (br_if $found (i32.ge_s (local.get $i) (local.get $end)))
        (br_if $found (i32.eqz (call $ws (i32.load8_u (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $ws)))
    (if (i32.ge_s (local.get $i) (local.get $end)) (then (return (i32.const 1))))
    (local.set $n (i32.eq (i32.load8_u (local.get $i)) (i32.const 0x7b))) ;; object
    (block $defer
      (block $invalid
        (block $eof
          (loop $token
            (br_if $eof (i32.ge_s (local.get $i) (local.get $end)))
            (local.set $c (i32.load8_u (local.get $i)))
            ;; (calls are not inlined: the common case, a byte above space, tests once)
            (if (i32.le_u (local.get $c) (i32.const 32))
              (then
                (if (call $ws (local.get $c))
                  (then
                    (local.set $i (i32.add (local.get $i) (i32.const 1)))
                    (br $token)))))
            (block $close
              ;; state 0: a value
              (if (i32.eqz (local.get $state))
                (then
                  ;; message.content: its kind, and where its (last) value starts
                  (if (i32.eq (local.get $pending) (i32.const 7))
                    (then
                      (i32.store offset=60 (local.get $o) (select (i32.const 1) (i32.const 2) (i32.eq (local.get $c) (i32.const 0x6e))))
                      (i32.store offset=128 (local.get $o) (local.get $i))))
                  (if (i32.eq (local.get $c) (i32.const 34))
                    (then
                      (local.set $close (call $string (i32.add (local.get $i) (i32.const 1)) (local.get $end)))
                      (br_if $invalid (i32.lt_s (local.get $close) (i32.const 0)))
                      ;; a block's keys (12 and up; most values have none: one test)
                      (if (i32.ge_u (local.get $pending) (i32.const 12))
                        (then
                          (if (i32.eq (local.get $pending) (i32.const 12))
                            (then (local.set $blockCall (i32.and
                              (i32.eq (i32.sub (local.get $close) (local.get $i)) (i32.const 9))
                              (i64.eq (i64.load offset=1 (local.get $i)) (i64.const 0x6c6c61436c6f6f74))))))
                          (if (i32.eq (local.get $pending) (i32.const 13))
                            (then
                              (local.set $blockIdOpen (local.get $i))
                              (local.set $blockIdClose (local.get $close))))
                          ;; a block's type (text, thinking; an escaped one: the texts are left to the reader), its text, its thinking
                          (if (i32.eq (local.get $pending) (i32.const 12))
                            (then
                              (if (global.get $escaped) (then (i32.store offset=132 (local.get $o) (i32.const -1))))
                              (i32.store offset=2304 (local.get $o) (select (i32.const 1)
                                (select (i32.const 2) (i32.const 0) (i32.and (i32.eq (i32.sub (local.get $close) (local.get $i)) (i32.const 9)) (i64.eq (i64.load offset=1 (local.get $i)) (i64.const 0x676e696b6e696874))))
                                (i32.and (i32.eq (i32.sub (local.get $close) (local.get $i)) (i32.const 5)) (i32.eq (i32.load offset=1 (local.get $i)) (i32.const 0x74786574)))))))
                          (if (i32.eq (local.get $pending) (i32.const 16))
                            (then
                              (i32.store offset=2308 (local.get $o) (local.get $i))
                              (i32.store offset=2312 (local.get $o) (local.get $close))))
                          (if (i32.eq (local.get $pending) (i32.const 17))
                            (then
                              (i32.store offset=2316 (local.get $o) (local.get $i))
                              (i32.store offset=2320 (local.get $o) (local.get $close))))
                          (if (i32.eq (local.get $pending) (i32.const 18))
                            (then
                              (i32.store offset=2324 (local.get $o) (local.get $i))
                              (i32.store offset=2328 (local.get $o) (local.get $close))))
                          (if (i32.eq (local.get $pending) (i32.const 19)) (then (i32.store offset=2332 (local.get $o) (local.get $i))))))
                      (if (i32.and (i32.ne (local.get $pending) (i32.const 0)) (i32.or (i32.lt_u (local.get $pending) (i32.const 12)) (i32.and (i32.ge_u (local.get $pending) (i32.const 14)) (i32.lt_u (local.get $pending) (i32.const 16)))))
                        (then (call $capture (local.get $o) (local.get $pending) (local.get $i) (local.get $close))))
                      (if (i32.gt_s (i32.sub (i32.sub (local.get $close) (local.get $i)) (i32.const 1)) (local.get $longest))
                        (then
                          (local.set $longest (i32.sub (i32.sub (local.get $close) (local.get $i)) (i32.const 1)))
                          (i32.store offset=64 (local.get $o) (i32.add (local.get $i) (i32.const 1)))
                          (i32.store offset=68 (local.get $o) (local.get $close))
                          (i32.store offset=72 (local.get $o) (global.get $escaped))))
                      (local.set $i (i32.add (local.get $close) (i32.const 1))))
                    (else
                      ;; (a tool call's arguments, where they start: an object or array, else a scalar)
                      (if (i32.eq (local.get $pending) (i32.const 19)) (then (i32.store offset=2332 (local.get $o) (local.get $i))))
                      (if (i32.or (i32.eq (local.get $c) (i32.const 0x7b)) (i32.eq (local.get $c) (i32.const 0x5b)))
                        (then
                          (br_if $defer (i32.ge_s (local.get $depth) (i32.const 512)))
                          (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
                          (i32.store8 offset=256 (i32.add (local.get $o) (local.get $depth)) (select (i32.const 1) (i32.const 2) (i32.eq (local.get $c) (i32.const 0x7b))))
                          (if (i32.and (i32.and (i32.eq (local.get $pending) (i32.const 5)) (i32.eq (local.get $depth) (i32.const 2))) (i32.eq (local.get $c) (i32.const 0x7b)))
                            (then
                              (local.set $msgDepth (i32.const 2))
                              (i32.store offset=52 (local.get $o) (local.get $i))))
                          ;; message.usage (an object), message.content (an array) and its blocks
                          (if (i32.and (i32.eq (local.get $pending) (i32.const 10)) (i32.eq (local.get $c) (i32.const 0x7b)))
                            (then
                              (local.set $usageDepth (local.get $depth))
                              (i32.store offset=92 (local.get $o) (local.get $i))))
                          (if (i32.and (i32.eq (local.get $pending) (i32.const 7)) (i32.eq (local.get $c) (i32.const 0x5b)))
                            (then (local.set $contentDepth (local.get $depth))))
                          (if (i32.and (i32.and (i32.ge_s (local.get $contentDepth) (i32.const 0)) (i32.eq (local.get $depth) (i32.add (local.get $contentDepth) (i32.const 1)))) (i32.eq (local.get $c) (i32.const 0x7b)))
                            (then
                              (local.set $blockDepth (local.get $depth))
                              (local.set $blockCall (i32.const 0))
                              (local.set $blockIdOpen (i32.const -1))
                              (i32.store offset=2304 (local.get $o) (i32.const 0))
                              (i32.store offset=2308 (local.get $o) (i32.const -1))
                              (i32.store offset=2316 (local.get $o) (i32.const -1))
                              (i32.store offset=2324 (local.get $o) (i32.const -1))
                              (i32.store offset=2332 (local.get $o) (i32.const -1))))
                          (local.set $i (i32.add (local.get $i) (i32.const 1)))
                          (local.set $pending (i32.const 0))
                          (local.set $state (select (i32.const 1) (i32.const 6) (i32.eq (local.get $c) (i32.const 0x7b))))
                          (br $token)))
                      (if (i32.eq (local.get $c) (i32.const 0x74)) ;; true
                        (then
                          (br_if $invalid (i32.gt_s (i32.add (local.get $i) (i32.const 4)) (local.get $end)))
                          (br_if $invalid (i32.ne (i32.load (local.get $i)) (i32.const 0x65757274)))
                          (local.set $i (i32.add (local.get $i) (i32.const 4))))
                        (else (if (i32.eq (local.get $c) (i32.const 0x66)) ;; false
                          (then
                            (br_if $invalid (i32.gt_s (i32.add (local.get $i) (i32.const 5)) (local.get $end)))
                            (br_if $invalid (i32.ne (i32.load (local.get $i)) (i32.const 0x736c6166)))
                            (br_if $invalid (i32.ne (i32.load8_u offset=4 (local.get $i)) (i32.const 0x65)))
                            (local.set $i (i32.add (local.get $i) (i32.const 5))))
                          (else (if (i32.eq (local.get $c) (i32.const 0x6e)) ;; null
                            (then
                              (br_if $invalid (i32.gt_s (i32.add (local.get $i) (i32.const 4)) (local.get $end)))
                              (br_if $invalid (i32.ne (i32.load (local.get $i)) (i32.const 0x6c6c756e)))
                              (local.set $i (i32.add (local.get $i) (i32.const 4))))
                            (else
                              (br_if $invalid (i32.eqz (i32.or (i32.eq (local.get $c) (i32.const 0x2d)) (call $digit (local.get $c)))))
                              (local.set $i (call $number (local.get $i) (local.get $end)))
                              (br_if $invalid (i32.lt_s (local.get $i) (i32.const 0)))))))))
                      ;; parentKind: 2 for null, 3 for another value that is not a string
                      (if (i32.eq (local.get $pending) (i32.const 3))
                        (then (i32.store offset=24 (local.get $o) (select (i32.const 2) (i32.const 3) (i32.eq (local.get $c) (i32.const 0x6e))))))))
                  (local.set $pending (i32.const 0))
                  (local.set $state (select (i32.const 5) (i32.const 4) (i32.eqz (local.get $depth))))
                  (br $token)))
              ;; state 6: just after '[': a value or ']'
              (if (i32.eq (local.get $state) (i32.const 6))
                (then
                  (br_if $close (i32.eq (local.get $c) (i32.const 0x5d)))
                  (local.set $state (i32.const 0))
                  (br $token)))
              ;; states 1 (just after '{': a key or '}') and 2 (a key)
              (if (i32.le_u (local.get $state) (i32.const 2))
                (then
                  (br_if $close (i32.and (i32.eq (local.get $c) (i32.const 0x7d)) (i32.eq (local.get $state) (i32.const 1))))
                  (br_if $invalid (i32.ne (local.get $c) (i32.const 34)))
                  (local.set $close (call $string (i32.add (local.get $i) (i32.const 1)) (local.get $end)))
                  (br_if $invalid (i32.lt_s (local.get $close) (i32.const 0)))
                  (local.set $pending (i32.const 0))
                  (if (i32.or (i32.or (i32.eq (local.get $depth) (i32.const 1)) (i32.eq (local.get $depth) (local.get $msgDepth))) (i32.eq (local.get $depth) (local.get $blockDepth)))
                    (then
                      (br_if $defer (global.get $escaped)) ;; an escaped key
                      (local.set $pending (call $key (i32.add (local.get $i) (i32.const 1)) (i32.sub (i32.sub (local.get $close) (local.get $i)) (i32.const 1))
                        (select (i32.const 2) (i32.eq (local.get $depth) (local.get $msgDepth)) (i32.eq (local.get $depth) (local.get $blockDepth)))))
                      ;; a key seen again: JSON.parse keeps its last value, so the earlier one is forgotten
                      (if (i32.eq (local.get $pending) (i32.const 12))
                        (then
                          (local.set $blockCall (i32.const 0))
                          (i32.store offset=2304 (local.get $o) (i32.const 0))))
                      (if (i32.eq (local.get $pending) (i32.const 13)) (then (local.set $blockIdOpen (i32.const -1))))
                      (if (i32.eq (local.get $pending) (i32.const 16)) (then (i32.store offset=2308 (local.get $o) (i32.const -1))))
                      (if (i32.eq (local.get $pending) (i32.const 17)) (then (i32.store offset=2316 (local.get $o) (i32.const -1))))
                      (if (i32.eq (local.get $pending) (i32.const 18)) (then (i32.store offset=2324 (local.get $o) (i32.const -1))))
                      (if (i32.eq (local.get $pending) (i32.const 19)) (then (i32.store offset=2332 (local.get $o) (i32.const -1))))
                      (call $forget (local.get $o) (local.get $pending))))
                  (local.set $i (i32.add (local.get $close) (i32.const 1)))
                  (local.set $state (i32.const 3))
                  (br $token)))
              ;; state 3: ':'
              (if (i32.eq (local.get $state) (i32.const 3))
                (then
                  (br_if $invalid (i32.ne (local.get $c) (i32.const 0x3a)))
                  (local.set $i (i32.add (local.get $i) (i32.const 1)))
                  (local.set $state (i32.const 0))
                  (br $token)))
              ;; state 4: after a value, ',' or the container's close
              (if (i32.eq (local.get $state) (i32.const 4))
                (then
                  (if (i32.eq (local.get $c) (i32.const 0x2c))
                    (then
                      (local.set $i (i32.add (local.get $i) (i32.const 1)))
                      (local.set $state (select (i32.const 2) (i32.const 0) (i32.eq (i32.load8_u offset=256 (i32.add (local.get $o) (local.get $depth))) (i32.const 1))))
                      (br $token)))
                  (br_if $close (i32.and (i32.eq (local.get $c) (i32.const 0x7d)) (i32.eq (i32.load8_u offset=256 (i32.add (local.get $o) (local.get $depth))) (i32.const 1))))
                  (br_if $close (i32.and (i32.eq (local.get $c) (i32.const 0x5d)) (i32.eq (i32.load8_u offset=256 (i32.add (local.get $o) (local.get $depth))) (i32.const 2))))))
              ;; state 5 (bytes after the value, e.g. two fused records) or a stray byte
              (br $invalid))
            ;; one place closes a container
            (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (if (i32.gt_s (local.get $blockDepth) (local.get $depth))
              (then
                (local.set $blockDepth (i32.const -1))
                ;; what the block holds that grep reads, kept at TEXTS (open, close, kind): a text's or a
                ;; thinking's string (kinds 1, 2), a tool call's name (3) and where its arguments start (4)
                (if (global.get $shape)
                  (then
                    (if (local.get $blockCall)
                      (then
                        (call $keep (local.get $o) (i32.load offset=2324 (local.get $o)) (i32.load offset=2328 (local.get $o)) (i32.const 3))
                        (call $keep (local.get $o) (i32.load offset=2332 (local.get $o)) (i32.const -1) (i32.const 4))))
                    (if (i32.eq (i32.load offset=2304 (local.get $o)) (i32.const 1)) (then (call $keep (local.get $o) (i32.load offset=2308 (local.get $o)) (i32.load offset=2312 (local.get $o)) (i32.const 1))))
                    (if (i32.eq (i32.load offset=2304 (local.get $o)) (i32.const 2)) (then (call $keep (local.get $o) (i32.load offset=2316 (local.get $o)) (i32.load offset=2320 (local.get $o)) (i32.const 2))))))
                (if (i32.and (local.get $blockCall) (i32.ge_s (local.get $blockIdOpen) (i32.const 0)))
                  (then
                    (local.set $calls (i32.load offset=108 (local.get $o)))
                    (if (i32.ge_s (local.get $calls) (i32.const 64))
                      (then (i32.store offset=108 (local.get $o) (i32.const -1)))
                      (else (if (i32.ge_s (local.get $calls) (i32.const 0))
                        (then
                          (i32.store offset=1024 (i32.add (local.get $o) (i32.shl (local.get $calls) (i32.const 3))) (local.get $blockIdOpen))
                          (i32.store offset=1028 (i32.add (local.get $o) (i32.shl (local.get $calls) (i32.const 3))) (local.get $blockIdClose))
                          (i32.store offset=108 (local.get $o) (i32.add (local.get $calls) (i32.const 1)))))))))))
            (if (i32.gt_s (local.get $contentDepth) (local.get $depth)) (then (local.set $contentDepth (i32.const -1))))
            (if (i32.gt_s (local.get $usageDepth) (local.get $depth))
              (then
                (local.set $usageDepth (i32.const -1))
                (i32.store offset=96 (local.get $o) (local.get $i))))
            (if (i32.gt_s (local.get $msgDepth) (local.get $depth))
              (then
                (local.set $msgDepth (i32.const -1))
                (i32.store offset=56 (local.get $o) (local.get $i))))
            (local.set $state (select (i32.const 5) (i32.const 4) (i32.eqz (local.get $depth))))
            (br $token)))
        ;; the end of the line
        (br_if $invalid (i32.ne (local.get $state) (i32.const 5)))
        (i32.store offset=4 (local.get $o) (i32.or (local.get $n) (i32.shl (global.get $odd) (i32.const 1))))
        (return (i32.const 0)))
      (return (i32.const 1)))
    (i32.const 2))

  ;; find(start, end): the address of the first `"usage"` or `\u` that starts in [start, end), or -1
  ;; (`usage`'s prefilter: a line without either holds no usage key). 16 bytes a round: a byte
  ;; that is a quote or a backslash followed by `u`, then the rest of `"usage"` checked.
  (func (export "find") (param $i i32) (param $end i32) (result i32)
    (local $a v128) (local $m i32) (local $p i32)
    (block $none
      (loop $round
        (br_if $none (i32.ge_s (local.get $i) (local.get $end)))
        (local.set $a (v128.load (local.get $i)))
        (local.set $m (i8x16.bitmask (v128.and
          (v128.or
            (i8x16.eq (local.get $a) (v128.const i8x16 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34 34))
            (i8x16.eq (local.get $a) (v128.const i8x16 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92 92)))
          (i8x16.eq (v128.load offset=1 (local.get $i)) (v128.const i8x16 117 117 117 117 117 117 117 117 117 117 117 117 117 117 117 117)))))
        (block $next
          (loop $bits
            (br_if $next (i32.eqz (local.get $m)))
            (local.set $p (i32.add (local.get $i) (i32.ctz (local.get $m))))
            (br_if $none (i32.ge_s (local.get $p) (local.get $end)))
            (if (i32.eq (i32.load8_u (local.get $p)) (i32.const 92)) (then (return (local.get $p))))
            (if (i32.and (i32.eq (i32.load offset=2 (local.get $p)) (i32.const 0x65676173)) (i32.eq (i32.load8_u offset=6 (local.get $p)) (i32.const 34)))
              (then (return (local.get $p))))
            (local.set $m (i32.and (local.get $m) (i32.sub (local.get $m) (i32.const 1))))
            (br $bits)))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $round)))
    (i32.const -1))

  ;; pairs(start, end): the address of the first position p in [start, end - 1) whose two bytes
  ;; (memory[p], memory[p + 1]) PAIRS (16 MiB + 64 KiB: a byte for each of the 65,536 pairs, read as
  ;; a little-endian u16) marks, or -1. `redact`'s line prefilter (anchors.ts): each position's pair
  ;; looked up in the table, eight a round with one test, then the round's one by one where one is.
  (func $pairs (param $i i32) (param $end i32) (result i32)
    (local $last i32) (local $k i32)
    (local.set $last (i32.sub (local.get $end) (i32.const 1)))
    (block $none
      (loop $round
        (br_if $none (i32.gt_s (i32.add (local.get $i) (i32.const 8)) (local.get $last)))
        (if (i32.or
              (i32.or
                (i32.or (i32.load8_u offset=16842752 (i32.load16_u (local.get $i)))
                        (i32.load8_u offset=16842752 (i32.load16_u offset=1 (local.get $i))))
                (i32.or (i32.load8_u offset=16842752 (i32.load16_u offset=2 (local.get $i)))
                        (i32.load8_u offset=16842752 (i32.load16_u offset=3 (local.get $i)))))
              (i32.or
                (i32.or (i32.load8_u offset=16842752 (i32.load16_u offset=4 (local.get $i)))
                        (i32.load8_u offset=16842752 (i32.load16_u offset=5 (local.get $i))))
                (i32.or (i32.load8_u offset=16842752 (i32.load16_u offset=6 (local.get $i)))
                        (i32.load8_u offset=16842752 (i32.load16_u offset=7 (local.get $i))))))
          (then
            (local.set $k (i32.const 0))
            (loop $which
              (if (i32.load8_u offset=16842752 (i32.load16_u (i32.add (local.get $i) (local.get $k))))
                (then (return (i32.add (local.get $i) (local.get $k)))))
              (local.set $k (i32.add (local.get $k) (i32.const 1)))
              (br $which))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $round)))
    ;; the last positions, one by one
    (block $done
      (loop $byte
        (br_if $done (i32.ge_s (local.get $i) (local.get $last)))
        (if (i32.load8_u offset=16842752 (i32.load16_u (local.get $i))) (then (return (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $byte)))
    (i32.const -1))

  ;; anchors(start, end, from): the address of the first position p in [from, end - 1) where a pair
  ;; PAIRS marks is a NUL byte's (its mark 1) or starts an anchor's pair, the anchor whole within
  ;; [start, end); -1 where none is. A mark above 1 names a bucket: BUCKETS (16 MiB + 128 KiB) holds
  ;; at 4 x mark the address of its entries, each a u16 length, the u16 offset of the pair in the
  ;; anchor, then the anchor's bytes; a length of 0 ends the bucket. `redact`'s line prefilter.
  (func (export "anchors") (param $start i32) (param $end i32) (param $i i32) (result i32)
    (local $p i32) (local $t i32) (local $e i32) (local $len i32) (local $s i32) (local $k i32)
    (loop $find
      (local.set $p (call $pairs (local.get $i) (local.get $end)))
      (if (i32.lt_s (local.get $p) (i32.const 0)) (then (return (i32.const -1))))
      (local.set $t (i32.load8_u offset=16842752 (i32.load16_u (local.get $p))))
      (if (i32.eq (local.get $t) (i32.const 1)) (then (return (local.get $p))))
      (local.set $e (i32.load offset=16908288 (i32.shl (local.get $t) (i32.const 2))))
      (block $next
        (loop $entry
          (local.set $len (i32.load16_u (local.get $e)))
          (br_if $next (i32.eqz (local.get $len)))
          (local.set $s (i32.sub (local.get $p) (i32.load16_u offset=2 (local.get $e))))
          (if (i32.and (i32.ge_s (local.get $s) (local.get $start)) (i32.le_s (i32.add (local.get $s) (local.get $len)) (local.get $end)))
            (then
              (local.set $k (i32.const 0))
              (block $differs
                (loop $byte
                  (if (i32.ge_s (local.get $k) (local.get $len)) (then (return (local.get $p))))
                  (br_if $differs (i32.ne (i32.load8_u (i32.add (local.get $s) (local.get $k))) (i32.load8_u offset=4 (i32.add (local.get $e) (local.get $k)))))
                  (local.set $k (i32.add (local.get $k) (i32.const 1)))
                  (br $byte)))))
          (local.set $e (i32.add (i32.add (local.get $e) (i32.const 4)) (local.get $len)))
          (br $entry)))
      (local.set $i (i32.add (local.get $p) (i32.const 1)))
      (br $find))
    (i32.const -1))

  ;; findNeedle(start, end, n, fold): the address of the first occurrence in [start, end) of the
  ;; n-byte needle at NEEDLE (OUT + 4 KiB), or -1; fold: ASCII letters match either case (the
  ;; needle's are lower case). `grep`'s prefilter: the first and last needle bytes compared 16
  ;; positions at a time, the rest checked where both match. Most of a haystack holds neither
  ;; pair: 64 positions are ruled out at once (four rounds' comparisons, one test) before a round
  ;; looks at its 16 one by one.
  (func (export "findNeedle") (param $i i32) (param $end i32) (param $n i32) (param $fold i32) (result i32)
    (local $f i32) (local $l i32) (local $ff i32) (local $lf i32) (local $vf v128) (local $vl v128)
    (local $a v128) (local $b v128) (local $m i32) (local $p i32) (local $k i32) (local $c i32) (local $nc i32)
    (local $of v128) (local $ol v128) (local $q i32)
    (local.set $f (i32.load8_u (i32.const 16814080)))
    (local.set $l (i32.load8_u (i32.add (i32.const 16814079) (local.get $n))))
    (local.set $ff (i32.and (local.get $fold) (i32.lt_u (i32.sub (local.get $f) (i32.const 97)) (i32.const 26))))
    (local.set $lf (i32.and (local.get $fold) (i32.lt_u (i32.sub (local.get $l) (i32.const 97)) (i32.const 26))))
    (local.set $vf (i8x16.splat (local.get $f)))
    (local.set $vl (i8x16.splat (local.get $l)))
    ;; (what folds a haystack byte's case: 32 in every lane where that needle byte is a letter, else 0)
    (local.set $of (i8x16.splat (i32.shl (local.get $ff) (i32.const 5))))
    (local.set $ol (i8x16.splat (i32.shl (local.get $lf) (i32.const 5))))
    (block $none
      (loop $round
        (br_if $none (i32.ge_s (local.get $i) (local.get $end)))
        ;; 64 positions ruled out at once, while 64 remain before the end
        (block $look
          (loop $fast
            (br_if $look (i32.gt_s (i32.add (local.get $i) (i32.const 64)) (local.get $end)))
            (local.set $q (i32.sub (i32.add (local.get $i) (local.get $n)) (i32.const 1)))
            (br_if $look (v128.any_true (v128.or
              (v128.or
                (v128.and (i8x16.eq (v128.or (v128.load (local.get $i)) (local.get $of)) (local.get $vf))
                          (i8x16.eq (v128.or (v128.load (local.get $q)) (local.get $ol)) (local.get $vl)))
                (v128.and (i8x16.eq (v128.or (v128.load offset=16 (local.get $i)) (local.get $of)) (local.get $vf))
                          (i8x16.eq (v128.or (v128.load offset=16 (local.get $q)) (local.get $ol)) (local.get $vl))))
              (v128.or
                (v128.and (i8x16.eq (v128.or (v128.load offset=32 (local.get $i)) (local.get $of)) (local.get $vf))
                          (i8x16.eq (v128.or (v128.load offset=32 (local.get $q)) (local.get $ol)) (local.get $vl)))
                (v128.and (i8x16.eq (v128.or (v128.load offset=48 (local.get $i)) (local.get $of)) (local.get $vf))
                          (i8x16.eq (v128.or (v128.load offset=48 (local.get $q)) (local.get $ol)) (local.get $vl)))))))
            (local.set $i (i32.add (local.get $i) (i32.const 64)))
            (br $fast)))
        (br_if $none (i32.ge_s (local.get $i) (local.get $end)))
        (local.set $a (v128.or (v128.load (local.get $i)) (local.get $of)))
        (local.set $b (v128.or (v128.load (i32.sub (i32.add (local.get $i) (local.get $n)) (i32.const 1))) (local.get $ol)))
        (local.set $m (i8x16.bitmask (v128.and (i8x16.eq (local.get $a) (local.get $vf)) (i8x16.eq (local.get $b) (local.get $vl)))))
        (block $next
          (loop $bits
            (br_if $next (i32.eqz (local.get $m)))
            (local.set $p (i32.add (local.get $i) (i32.ctz (local.get $m))))
            (br_if $none (i32.ge_s (local.get $p) (local.get $end)))
            ;; the bytes between the first and the last
            (local.set $k (i32.const 1))
            (block $differs
              (loop $byte
                (if (i32.ge_s (local.get $k) (i32.sub (local.get $n) (i32.const 1))) (then (return (local.get $p))))
                (local.set $c (i32.load8_u (i32.add (local.get $p) (local.get $k))))
                (local.set $nc (i32.load8_u (i32.add (i32.const 16814080) (local.get $k))))
                (if (i32.and (local.get $fold) (i32.lt_u (i32.sub (local.get $nc) (i32.const 97)) (i32.const 26)))
                  (then (local.set $c (i32.or (local.get $c) (i32.const 32)))))
                (br_if $differs (i32.ne (local.get $c) (local.get $nc)))
                (local.set $k (i32.add (local.get $k) (i32.const 1)))
                (br $byte)))
            (local.set $m (i32.and (local.get $m) (i32.sub (local.get $m) (i32.const 1))))
            (br $bits)))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $round)))
    (i32.const -1))

  (func $ws (param $c i32) (result i32)
    (i32.or
      (i32.or (i32.eq (local.get $c) (i32.const 0x20)) (i32.eq (local.get $c) (i32.const 0x0a)))
      (i32.or (i32.eq (local.get $c) (i32.const 0x09)) (i32.eq (local.get $c) (i32.const 0x0d)))))

;; A content block's text kept at TEXTS (OUT + 1536): nothing when $open is -1; the count (slot
  ;; Texts) -1, its texts left to the reader, past 64 or once it is -1.
  (func $keep (param $o i32) (param $open i32) (param $close i32) (param $kind i32)
    (local $n i32) (local $at i32)
    (if (i32.lt_s (local.get $open) (i32.const 0)) (then (return)))
    (local.set $n (i32.load offset=132 (local.get $o)))
    (if (i32.lt_s (local.get $n) (i32.const 0)) (then (return)))
    (if (i32.ge_s (local.get $n) (i32.const 64))
      (then
        (i32.store offset=132 (local.get $o) (i32.const -1))
        (return)))
    (local.set $at (i32.add (local.get $o) (i32.mul (local.get $n) (i32.const 12))))
    (i32.store offset=1536 (local.get $at) (local.get $open))
    (i32.store offset=1540 (local.get $at) (local.get $close))
    (i32.store offset=1544 (local.get $at) (local.get $kind))
    (i32.store offset=132 (local.get $o) (i32.add (local.get $n) (i32.const 1))))

  ;; Where kept key $key's string value is kept (its open quote's slot; the close follows), or 0.
  (func $slot (param $key i32) (result i32)
    (if (i32.eq (local.get $key) (i32.const 14)) (then (return (i32.const 112)))) ;; responseModel
    (if (i32.eq (local.get $key) (i32.const 15)) (then (return (i32.const 120)))) ;; stopReason
    (block $none
      (block $b11 (block $b9 (block $b8 (block $b6 (block $b4 (block $b3 (block $b2 (block $b1
        (br_table $none $b1 $b2 $b3 $b4 $none $b6 $none $b8 $b9 $none $b11 $none (local.get $key)))
        (return (i32.const 8)))    ;; type
        (return (i32.const 16)))   ;; id
        (return (i32.const 28)))   ;; parentId
        (return (i32.const 36)))   ;; timestamp
        (return (i32.const 44)))   ;; role
        (return (i32.const 76)))   ;; provider
        (return (i32.const 84)))   ;; model
        (return (i32.const 100)))  ;; toolCallId
    (i32.const 0))

  ;; A string value of kept key $key: its quotes' addresses into the key's slots.
  (func $capture (param $o i32) (param $key i32) (param $open i32) (param $close i32)
    (local $at i32)
    (local.set $at (call $slot (local.get $key)))
    (if (i32.eqz (local.get $at)) (then (return))) ;; message, content, usage: not strings
    (if (i32.eq (local.get $key) (i32.const 3)) (then (i32.store offset=24 (local.get $o) (i32.const 1))))
    (i32.store (i32.add (local.get $o) (local.get $at)) (local.get $open))
    (i32.store offset=4 (i32.add (local.get $o) (local.get $at)) (local.get $close)))

  ;; A kept key seen (again): what an earlier value of it left is forgotten (JSON.parse keeps the last).
  (func $forget (param $o i32) (param $key i32)
    (local $at i32)
    (local.set $at (call $slot (local.get $key)))
    (if (local.get $at) (then (i32.store (i32.add (local.get $o) (local.get $at)) (i32.const -1))))
    (if (i32.eq (local.get $key) (i32.const 3)) (then (i32.store offset=24 (local.get $o) (i32.const 3))))
    ;; responseModel: -2 for present (its value may not be a string), until a string is captured
    (if (i32.eq (local.get $key) (i32.const 14)) (then (i32.store offset=112 (local.get $o) (i32.const -2))))
    (if (i32.eq (local.get $key) (i32.const 5))
      (then
        (i32.store offset=112 (local.get $o) (i32.const -1))
        (i32.store offset=120 (local.get $o) (i32.const -1))
        (i32.store offset=44 (local.get $o) (i32.const -1))
        (i32.store offset=52 (local.get $o) (i32.const -1))
        (i32.store offset=56 (local.get $o) (i32.const -1))
        (i32.store offset=60 (local.get $o) (i32.const 0))
        (i32.store offset=76 (local.get $o) (i32.const -1))
        (i32.store offset=84 (local.get $o) (i32.const -1))
        (i32.store offset=92 (local.get $o) (i32.const -1))
        (i32.store offset=96 (local.get $o) (i32.const -1))
        (i32.store offset=100 (local.get $o) (i32.const -1))
        (i32.store offset=108 (local.get $o) (i32.const 0))
        (i32.store offset=128 (local.get $o) (i32.const -1))
        (i32.store offset=132 (local.get $o) (i32.const 0))))
    (if (i32.eq (local.get $key) (i32.const 7))
      (then
        (i32.store offset=60 (local.get $o) (i32.const 0))
        (i32.store offset=108 (local.get $o) (i32.const 0))
        (i32.store offset=128 (local.get $o) (i32.const -1))
        (i32.store offset=132 (local.get $o) (i32.const 0))))
    (if (i32.eq (local.get $key) (i32.const 10))
      (then
        (i32.store offset=92 (local.get $o) (i32.const -1))
        (i32.store offset=96 (local.get $o) (i32.const -1)))))
)
