// bad.s - fixture: an assembler error on line 3.
.param a
    add.f32 %r1, %r99, 1.0
