// spin.s - a kernel that never ends (sandbox_limits.lua).
.kernel spin
LOOP:
    bra LOOP;
    exit;
