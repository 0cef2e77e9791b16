# websearch: WebSearch (DCTCP web search), HPCC version
# measured in: M. Alizadeh, A. Greenberg, D. A. Maltz, J. Padhye, P. Patel, B. Prabhakar, S. Sengupta, M. Sridharan, "Data Center TCP (DCTCP)", ACM SIGCOMM 2010 (flow sizes of background traffic in a production web-
# tabulation: https://github.com/alibaba-edu/High-Precision-Congestion-Control (branch master, snapshot commit 9f4be2a9ead8a90e8bf732c66bd758c00e58e5be) traffic_gen/WebSearch_distribution.txt (last changed in commit 9cf8b9e8c8d04a3775e06c972c4699dcbce53c37)
# interpolation: linear
0 0.0
10000 0.15
20000 0.2
30000 0.3
50000 0.4
80000 0.53
200000 0.6
1000000 0.7
2000000 0.8
5000000 0.9
10000000 0.97
30000000 1.0
