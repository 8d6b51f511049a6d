// vecadd.s - c[i] = a[i] + b[i] for i < n; one thread per element,
// i = ctaid.x * ntid.x + tid.x. No .kernel line: the name is the file stem.
.param a
.param b
.param c
.param n
    mov.u32 %r0, %tid.x
    mov.u32 %r1, %ctaid.x
    mad.lo.u32 %r2, %r1, %ntid.x, %r0     // i
    ld.param.u32 %r3, [n]
    setp.ge.u32 %p0, %r2, %r3
@%p0 exit                                 // past the end
    shl.b32 %r4, %r2, 2                   // byte offset
    ld.param.u32 %r5, [a]
    ld.param.u32 %r6, [b]
    ld.param.u32 %r7, [c]
    add.u32 %r5, %r5, %r4
    add.u32 %r6, %r6, %r4
    add.u32 %r7, %r7, %r4
    ld.global.f32 %r8, [%r5]
    ld.global.f32 %r9, [%r6]
    add.f32 %r8, %r8, %r9
    st.global.f32 [%r7], %r8
    exit
