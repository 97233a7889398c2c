# a comment line opens the file
1.0 0:0.5 2:1.2
-2.0
3:0.25 qid:7 1:2.5 5:-1e-3   # a label with a weight, a query id, a trailing comment

4 0:1 1:2 2:3 3:4 4:5 5:6
+5 5:.5 0:-.25
0	2:7	4:8
6 1:1.5e2
7 3:3 3:9
-8 2:0.125 4:-4
9 0:9
10 5:10 1:-1
