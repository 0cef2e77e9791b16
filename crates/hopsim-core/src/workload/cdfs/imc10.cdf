# imc10: IMC10 (Benson et al. university/enterprise data center), pHost version
# measured in: T. Benson, A. Akella, D. A. Maltz, "Network Traffic Characteristics of Data Centers in the Wild", ACM IMC 2010
# tabulation: https://github.com/NetSys/simulator (branch master, snapshot commit 179b64ef7a78c3e1c3b95006b96a35f8fc0cff01) py/CDF_aditya.txt (last changed in commit 117bb0c30102db860ef206aefccfbb960cbf0a5e)
# interpolation: linear
1460 0.0
1460 0.5
2920 0.6
4380 0.7
7300 0.75
10220 0.8
58400 0.8125
105120 0.825
200020 0.85
389820 0.9
1733020 0.95
3076220 1.0
