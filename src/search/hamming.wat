;; Hamming distances between a query code and every code of a vector index, with a histogram of
;; them (see hamming-scan.ts, which lays out the memory and calls `scan`). SIMD: 128 bits a step,
;; popcount per byte, then pairwise sums into 16-bit lanes (up to 4,095 steps cannot overflow).
;; Slots whose group is negative (a removed passage) or not wanted get `unreachable`.
(module
  (memory (export "memory") 1)
  (func (export "scan")
    (param $codes i32) (param $count i32) (param $vecs i32) (param $query i32)
    (param $groups i32) (param $wanted i32) (param $dist i32) (param $hist i32) (param $unreachable i32)
    (local $s i32) (local $g i32) (local $w i32) (local $c i32) (local $q i32) (local $d i32) (local $acc v128) (local $h i32)
    (block $done
      (loop $slots
        (br_if $done (i32.ge_u (local.get $s) (local.get $count)))
        (local.set $g (i32.load (i32.add (local.get $groups) (i32.shl (local.get $s) (i32.const 2)))))
        (if (i32.or (i32.lt_s (local.get $g) (i32.const 0))
                    (i32.eqz (i32.load8_u (i32.add (local.get $wanted) (local.get $g)))))
          (then
            (i32.store16 (i32.add (local.get $dist) (i32.shl (local.get $s) (i32.const 1))) (local.get $unreachable)))
          (else
            (local.set $acc (v128.const i32x4 0 0 0 0))
            (local.set $c (i32.add (local.get $codes) (i32.shl (i32.mul (local.get $s) (local.get $vecs)) (i32.const 4))))
            (local.set $q (local.get $query))
            (local.set $w (i32.const 0))
            (loop $words
              (local.set $acc
                (i16x8.add (local.get $acc)
                  (i16x8.extadd_pairwise_i8x16_u
                    (i8x16.popcnt (v128.xor (v128.load (local.get $c)) (v128.load (local.get $q)))))))
              (local.set $c (i32.add (local.get $c) (i32.const 16)))
              (local.set $q (i32.add (local.get $q) (i32.const 16)))
              (local.set $w (i32.add (local.get $w) (i32.const 1)))
              (br_if $words (i32.lt_u (local.get $w) (local.get $vecs))))
            (local.set $acc (i32x4.extadd_pairwise_i16x8_u (local.get $acc)))
            (local.set $d
              (i32.add
                (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
                (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
            (i32.store16 (i32.add (local.get $dist) (i32.shl (local.get $s) (i32.const 1))) (local.get $d))
            (local.set $h (i32.add (local.get $hist) (i32.shl (local.get $d) (i32.const 2))))
            (i32.store (local.get $h) (i32.add (i32.load (local.get $h)) (i32.const 1)))))
        (local.set $s (i32.add (local.get $s) (i32.const 1)))
        (br $slots)))))
