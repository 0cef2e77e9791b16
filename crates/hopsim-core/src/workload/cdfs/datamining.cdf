# datamining: Data Mining (VL2), pFabric/pHost tabulation in packets
# measured in: A. Greenberg, J. R. Hamilton, N. Jain, S. Kandula, C. Kim, P. Lahiri, D. A. Maltz, P. Patel, S. Sengupta, "VL2: A Scalable and Flexible Data Center Network", ACM SIGCOMM 2009 (flow sizes in a data-min
# tabulation: https://github.com/NetSys/simulator (branch master, snapshot commit 179b64ef7a78c3e1c3b95006b96a35f8fc0cff01) py/CDF_datamining.txt (last changed in commit 117bb0c30102db860ef206aefccfbb960cbf0a5e)
# interpolation: linear
1460 0.0
1460 0.5
2920 0.6
4380 0.7
10220 0.8
389820 0.9
3076220 0.95
97333820 0.99
973333820 1.0
