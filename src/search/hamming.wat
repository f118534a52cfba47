;; The codes of a vector index (`encode`), Hamming distances between a query code and every code,
;; with a histogram of them (`scan`), and the pick of the nearest slots (`select`); hamming-scan.ts
;; lays out the memory and calls them. Codes of up to 512 bits (both built-in models) are counted
;; 64 bits at a time with the CPU's popcount; longer ones in SIMD: 128 bits a step, popcount per
;; byte, summed per byte over up to 31 steps (8 × 31 < 256), then into 16-bit lanes (up to 4,095
;; steps cannot overflow).
;; Slots whose group is negative (a removed passage) or not wanted get `unreachable`.
(module
  ;; The memory is the index's (hamming-scan.ts), shared with a helper thread's instance (shared-scan.ts).
  (import "env" "memory" (memory 1 65536 shared))
  ;; Where the touch loads' values go, so that no compiler drops them as unused.
  (global $touched (mut i32) (i32.const 0))
  (func (export "scan")
    (param $codes i32) (param $count i32) (param $vecs i32) (param $query i32)
    (param $groups i32) (param $wanted i32) (param $dist i32) (param $hist i32) (param $unreachable i32)
    (local $s i32) (local $g i32) (local $w i32) (local $c i32) (local $q i32) (local $d i32) (local $h i32)
    (local $stride i32) (local $run i32) (local $bytes v128) (local $acc v128)
    (local $k0 i64) (local $k1 i64) (local $k2 i64) (local $k3 i64) (local $k4 i64) (local $k5 i64) (local $k6 i64) (local $k7 i64) (local $x i64)
    (local $end i32) (local $p i32) (local $t i32)
    ;; Codes of up to four steps (512 bits) are done in straight lines with the query held in
    ;; locals, 64 bits at a time: i64.popcnt is one instruction, where i8x16.popcnt is a table
    ;; lookup of several and its byte counts need summing across lanes (a scan of 355k codes of
    ;; 384 bits: 2.2 → 1.6 ms). Loads past a short query read the histogram's memory, never used.
    (local.set $k0 (i64.load (local.get $query)))
    (local.set $k1 (i64.load offset=8 (local.get $query)))
    (local.set $k2 (i64.load offset=16 (local.get $query)))
    (local.set $k3 (i64.load offset=24 (local.get $query)))
    (local.set $k4 (i64.load offset=32 (local.get $query)))
    (local.set $k5 (i64.load offset=40 (local.get $query)))
    (local.set $k6 (i64.load offset=48 (local.get $query)))
    (local.set $k7 (i64.load offset=56 (local.get $query)))
    (local.set $stride (i32.shl (local.get $vecs) (i32.const 4)))
    (local.set $c (local.get $codes))
    (block $done
      (loop $slots
        (br_if $done (i32.ge_u (local.get $s) (local.get $count)))
        ;; Every 1,024 slots, the next 1,024 slots' codes, groups and distances are read one load a
        ;; 64-byte line first: a loop that short keeps many cache misses in flight, where the long
        ;; loop below keeps few, so codes that are not in the cache (the other tier's scan, the
        ;; model's weights and the store have been through it since) stream ~2× faster.
        (if (i32.ge_u (local.get $s) (local.get $end))
          (then
            (local.set $end (select (i32.add (local.get $s) (i32.const 1024)) (local.get $count)
              (i32.lt_u (i32.add (local.get $s) (i32.const 1024)) (local.get $count))))
            (local.set $p (local.get $c))
            (local.set $h (i32.add (local.get $codes) (i32.mul (local.get $end) (local.get $stride))))
            (loop $touchCodes
              (local.set $t (i32.add (local.get $t) (i32.load (local.get $p))))
              (local.set $p (i32.add (local.get $p) (i32.const 64)))
              (br_if $touchCodes (i32.lt_u (local.get $p) (local.get $h))))
            (local.set $p (i32.add (local.get $groups) (i32.shl (local.get $s) (i32.const 2))))
            (local.set $h (i32.add (local.get $groups) (i32.shl (local.get $end) (i32.const 2))))
            (loop $touchGroups
              (local.set $t (i32.add (local.get $t) (i32.load (local.get $p))))
              (local.set $p (i32.add (local.get $p) (i32.const 64)))
              (br_if $touchGroups (i32.lt_u (local.get $p) (local.get $h))))
            (local.set $p (i32.add (local.get $dist) (i32.shl (local.get $s) (i32.const 1))))
            (local.set $h (i32.add (local.get $dist) (i32.shl (local.get $end) (i32.const 1))))
            (loop $touchDistances
              (local.set $t (i32.add (local.get $t) (i32.load (local.get $p))))
              (local.set $p (i32.add (local.get $p) (i32.const 64)))
              (br_if $touchDistances (i32.lt_u (local.get $p) (local.get $h))))
            (global.set $touched (local.get $t))))
        (local.set $g (i32.load (i32.add (local.get $groups) (i32.shl (local.get $s) (i32.const 2)))))
        (if (i32.or (i32.lt_s (local.get $g) (i32.const 0))
                    (i32.eqz (i32.load8_u (i32.add (local.get $wanted) (local.get $g)))))
          (then
            (i32.store16 (i32.add (local.get $dist) (i32.shl (local.get $s) (i32.const 1))) (local.get $unreachable)))
          (else
            (if (i32.le_u (local.get $vecs) (i32.const 4))
              (then
                (local.set $x (i64.add
                  (i64.popcnt (i64.xor (i64.load (local.get $c)) (local.get $k0)))
                  (i64.popcnt (i64.xor (i64.load offset=8 (local.get $c)) (local.get $k1)))))
                (if (i32.gt_u (local.get $vecs) (i32.const 1))
                  (then (local.set $x (i64.add (local.get $x) (i64.add
                    (i64.popcnt (i64.xor (i64.load offset=16 (local.get $c)) (local.get $k2)))
                    (i64.popcnt (i64.xor (i64.load offset=24 (local.get $c)) (local.get $k3))))))))
                (if (i32.gt_u (local.get $vecs) (i32.const 2))
                  (then (local.set $x (i64.add (local.get $x) (i64.add
                    (i64.popcnt (i64.xor (i64.load offset=32 (local.get $c)) (local.get $k4)))
                    (i64.popcnt (i64.xor (i64.load offset=40 (local.get $c)) (local.get $k5))))))))
                (if (i32.gt_u (local.get $vecs) (i32.const 3))
                  (then (local.set $x (i64.add (local.get $x) (i64.add
                    (i64.popcnt (i64.xor (i64.load offset=48 (local.get $c)) (local.get $k6)))
                    (i64.popcnt (i64.xor (i64.load offset=56 (local.get $c)) (local.get $k7))))))))
                (local.set $d (i32.wrap_i64 (local.get $x))))
              (else
                (local.set $acc (v128.const i32x4 0 0 0 0))
                (local.set $q (local.get $query))
                (local.set $w (i32.const 0))
                (loop $runs
                  ;; Byte counts for up to 31 steps, then widened once: cheaper than widening every step.
                  (local.set $bytes (v128.const i32x4 0 0 0 0))
                  (local.set $run (i32.const 0))
                  (loop $words
                    (local.set $bytes
                      (i8x16.add (local.get $bytes)
                        (i8x16.popcnt (v128.xor
                          (v128.load (i32.add (local.get $c) (i32.shl (local.get $w) (i32.const 4))))
                          (v128.load (i32.add (local.get $q) (i32.shl (local.get $w) (i32.const 4))))))))
                    (local.set $w (i32.add (local.get $w) (i32.const 1)))
                    (local.set $run (i32.add (local.get $run) (i32.const 1)))
                    (br_if $words (i32.and (i32.lt_u (local.get $w) (local.get $vecs)) (i32.lt_u (local.get $run) (i32.const 31)))))
                  (local.set $acc (i16x8.add (local.get $acc) (i16x8.extadd_pairwise_i8x16_u (local.get $bytes))))
                  (br_if $runs (i32.lt_u (local.get $w) (local.get $vecs))))
                ;; Lanes summed by folding halves: 8 → 4 (32-bit) → 2 → 1.
                (local.set $acc (i32x4.extadd_pairwise_i16x8_u (local.get $acc)))
                (local.set $acc (i32x4.add (local.get $acc) (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $acc) (local.get $acc))))
                (local.set $d (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc))))))
            (i32.store16 (i32.add (local.get $dist) (i32.shl (local.get $s) (i32.const 1))) (local.get $d))
            (local.set $h (i32.add (local.get $hist) (i32.shl (local.get $d) (i32.const 2))))
            (i32.store (local.get $h) (i32.add (i32.load (local.get $h)) (i32.const 1)))))
        (local.set $c (i32.add (local.get $c) (local.get $stride)))
        (local.set $s (i32.add (local.get $s) (i32.const 1)))
        (br $slots))))

;; The Hamming distance between the codes at `a` and `b`, of `vecs` 128-bit steps, 64 bits at a
  ;; time: for filing codes in inverted lists (inverted-lists.ts).
  (func $distance (param $a i32) (param $b i32) (param $vecs i32) (result i32)
    (local $end i32) (local $x i64)
    (local.set $end (i32.add (local.get $a) (i32.shl (local.get $vecs) (i32.const 4))))
    (loop $steps
      (local.set $x (i64.add (local.get $x) (i64.add
        (i64.popcnt (i64.xor (i64.load (local.get $a)) (i64.load (local.get $b))))
        (i64.popcnt (i64.xor (i64.load offset=8 (local.get $a)) (i64.load offset=8 (local.get $b)))))))
      (local.set $a (i32.add (local.get $a) (i32.const 16)))
      (local.set $b (i32.add (local.get $b) (i32.const 16)))
      (br_if $steps (i32.lt_u (local.get $a) (local.get $end))))
    (i32.wrap_i64 (local.get $x)))

  ;; Writes to `out` (i16) for each of the `count` codes from `codes` the nearest of the `k` codes at
  ;; `centres`: the list each slot joins.
  (func (export "nearest")
    (param $codes i32) (param $count i32) (param $vecs i32) (param $centres i32) (param $k i32) (param $out i32)
    (local $i i32) (local $j i32) (local $c i32) (local $d i32) (local $best i32) (local $at i32) (local $stride i32)
    (local.set $stride (i32.shl (local.get $vecs) (i32.const 4)))
    (block $done
      (loop $codesLoop
        (br_if $done (i32.ge_u (local.get $i) (local.get $count)))
        (local.set $c (i32.add (local.get $codes) (i32.mul (local.get $i) (local.get $stride))))
        (local.set $best (i32.const 0x7fffffff))
        (local.set $j (i32.const 0))
        (loop $centresLoop
          (local.set $d (call $distance
            (i32.add (local.get $centres) (i32.mul (local.get $j) (local.get $stride))) (local.get $c) (local.get $vecs)))
          (if (i32.lt_u (local.get $d) (local.get $best))
            (then (local.set $best (local.get $d)) (local.set $at (local.get $j))))
          (local.set $j (i32.add (local.get $j) (i32.const 1)))
          (br_if $centresLoop (i32.lt_u (local.get $j) (local.get $k))))
        (i32.store16 (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 1))) (local.get $at))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $codesLoop))))

  ;; Writes to `out` the slots nearer than `cutoff`, and of those at it the first `atCutoff`, in slot
  ;; order; returns how many. Eight distances are compared at a time: most blocks hold none.
  (func (export "select")
    (param $dist i32) (param $count i32) (param $cutoff i32) (param $atCutoff i32) (param $out i32) (result i32)
    (local $s i32) (local $end i32) (local $d i32) (local $n i32) (local $limit v128)
    (local.set $limit (i16x8.splat (local.get $cutoff)))
    (block $done
      (loop $blocks
        (br_if $done (i32.ge_u (local.get $s) (local.get $count)))
        (local.set $end (i32.add (local.get $s) (i32.const 8)))
        (if (i32.gt_u (local.get $end) (local.get $count)) (then (local.set $end (local.get $count))))
        ;; A block is looked at slot by slot only when one of its eight may be in. Past `count` the
        ;; memory holds whatever it holds: those lanes are never read one by one.
        (if (v128.any_true (i16x8.le_u (v128.load (i32.add (local.get $dist) (i32.shl (local.get $s) (i32.const 1)))) (local.get $limit)))
          (then
            (loop $slots
              (local.set $d (i32.load16_u (i32.add (local.get $dist) (i32.shl (local.get $s) (i32.const 1)))))
              (if (i32.or (i32.lt_u (local.get $d) (local.get $cutoff))
                          (i32.and (i32.eq (local.get $d) (local.get $cutoff)) (i32.gt_s (local.get $atCutoff) (i32.const 0))))
                (then
                  (if (i32.eq (local.get $d) (local.get $cutoff)) (then (local.set $atCutoff (i32.sub (local.get $atCutoff) (i32.const 1)))))
                  (i32.store (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2))) (local.get $s))
                  (local.set $n (i32.add (local.get $n) (i32.const 1)))))
              (local.set $s (i32.add (local.get $s) (i32.const 1)))
              (br_if $slots (i32.lt_u (local.get $s) (local.get $end)))))
          (else (local.set $s (local.get $end))))
        (br $blocks)))
    (local.get $n))

  ;; Writes to `out` the code of the `padded` floats at `work` (a power of two, at least 32): their
  ;; Walsh–Hadamard transform in place, then a bit for each of the first `bits` outputs above 0.
  ;; The first two levels of butterflies mix lanes within one vector, the others whole vectors.
  (func (export "encode") (param $work i32) (param $padded i32) (param $bits i32) (param $out i32)
    (local $end i32) (local $i i32) (local $j i32) (local $h i32) (local $x v128) (local $a v128) (local $b v128)
    (local $w i32) (local $k i32) (local $word i32) (local $left i32)
    (local.set $end (i32.add (local.get $work) (i32.shl (local.get $padded) (i32.const 2))))
    (local.set $i (local.get $work))
    (loop $lanes
      (local.set $x (v128.load (local.get $i)))
      ;; [a b c d] → [a+b a−b c+d c−d] → [a+c b+d a−c b−d] of those
      (local.set $x (f32x4.add
        (i8x16.shuffle 0 1 2 3 0 1 2 3 8 9 10 11 8 9 10 11 (local.get $x) (local.get $x))
        (f32x4.mul (i8x16.shuffle 4 5 6 7 4 5 6 7 12 13 14 15 12 13 14 15 (local.get $x) (local.get $x)) (v128.const f32x4 1 -1 1 -1))))
      (local.set $x (f32x4.add
        (i8x16.shuffle 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 (local.get $x) (local.get $x))
        (f32x4.mul (i8x16.shuffle 8 9 10 11 12 13 14 15 8 9 10 11 12 13 14 15 (local.get $x) (local.get $x)) (v128.const f32x4 1 1 -1 -1))))
      (v128.store (local.get $i) (local.get $x))
      (local.set $i (i32.add (local.get $i) (i32.const 16)))
      (br_if $lanes (i32.lt_u (local.get $i) (local.get $end))))
    ;; $h: the butterflies' span in bytes, from four floats up
    (local.set $h (i32.const 16))
    (block $levels
      (loop $level
        (br_if $levels (i32.ge_u (i32.add (local.get $work) (local.get $h)) (local.get $end)))
        (local.set $i (local.get $work))
        (loop $blocks
          (local.set $j (local.get $i))
          (loop $pairs
            (local.set $a (v128.load (local.get $j)))
            (local.set $b (v128.load (i32.add (local.get $j) (local.get $h))))
            (v128.store (local.get $j) (f32x4.add (local.get $a) (local.get $b)))
            (v128.store (i32.add (local.get $j) (local.get $h)) (f32x4.sub (local.get $a) (local.get $b)))
            (local.set $j (i32.add (local.get $j) (i32.const 16)))
            (br_if $pairs (i32.lt_u (local.get $j) (i32.add (local.get $i) (local.get $h)))))
          (local.set $i (i32.add (local.get $i) (i32.shl (local.get $h) (i32.const 1))))
          (br_if $blocks (i32.lt_u (local.get $i) (local.get $end))))
        (local.set $h (i32.shl (local.get $h) (i32.const 1)))
        (br $level)))
    ;; A 32-bit word for each 32 outputs, eight signs a vector; bits past `bits` stay 0.
    (local.set $i (local.get $work))
    (block $done
      (loop $words
        (local.set $left (i32.sub (local.get $bits) (i32.shl (local.get $w) (i32.const 5))))
        (br_if $done (i32.le_s (local.get $left) (i32.const 0)))
        (local.set $word (i32.const 0))
        (local.set $k (i32.const 0))
        (loop $signs
          (local.set $word (i32.or (local.get $word)
            (i32.shl (i32x4.bitmask (f32x4.gt (v128.load (local.get $i)) (v128.const f32x4 0 0 0 0))) (local.get $k))))
          (local.set $i (i32.add (local.get $i) (i32.const 16)))
          (local.set $k (i32.add (local.get $k) (i32.const 4)))
          (br_if $signs (i32.lt_u (local.get $k) (i32.const 32))))
        (if (i32.lt_u (local.get $left) (i32.const 32))
          (then (local.set $word (i32.and (local.get $word) (i32.sub (i32.shl (i32.const 1) (local.get $left)) (i32.const 1))))))
        (i32.store (i32.add (local.get $out) (i32.shl (local.get $w) (i32.const 2))) (local.get $word))
        (local.set $w (i32.add (local.get $w) (i32.const 1)))
        (br $words)))))
