// family: dyck
// requires: k=1
// alphabet: ( )
// Dyck-1 (Yang & Chiang, COLM 2024, the program of the public interpreter's
// dyck1_yc24.cr): no prefix has more ")" than "(" (the count of such prefixes is 0)
// and the whole word has as many "(" as ")". Three counts, depth 2, for every n.
C_open = # "("
C_close = # ")"
V = C_open < C_close
CV = # V
M = (CV == 0)
B = (C_open == C_close)
D = M && B
