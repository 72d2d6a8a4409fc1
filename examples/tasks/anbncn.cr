// name: anbncn
// alphabet: a b c
// lengths: 1 30
// description: a^n b^n c^n for n >= 1 (the language of the public C-RASP interpreter's count3)
// a^n b^n c^n (n >= 1): the public C-RASP interpreter's count3 language, written in our
// .cr syntax. Three prefix counts say that the numbers of a, b and c are equal; two more
// count the positions that break the order a* b* c* (an a after a b or c, a b after a c).
// Read at the end marker (an end-of-string acceptance), where every count is complete.
C_a = # "a"
C_b = # "b"
C_c = # "c"
a_late = "a" && C_b + C_c > 0
b_late = "b" && C_c > 0
out_of_order = # (a_late || b_late)
equal = C_a == C_b && C_b == C_c
accept = equal && out_of_order == 0 && C_a > 0
